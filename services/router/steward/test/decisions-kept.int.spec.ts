import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import {
  Aggregates,
  Durables,
  EnvelopeTypes,
  Streams,
  Subjects,
  subject,
  type ProposalView,
} from '@dirigent/contracts';
import type { FakeMessage, FakeUser } from '@dirigent/discord-fake';
import { EventStore } from '@dirigent/event-store';
import { foldProposal, proposalText, type ProposalEvent } from '@dirigent/router-domain';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import { startHarness, type Harness } from '../../../discord-ingest/test/harness';
import { RouterService } from '../../router.module';
import { grantManageGuild } from './manage-guild';

const LONG = 60_000;

/**
 * A moderator's ✅ is never lost (docs/architecture.md, "Steward"): one given on a post the
 * router had not recorded when it went down is honoured once the restarted router records the
 * post, and one given before the TTL ended counts even when the router processes it after
 * the expiry. The router is stopped and started again around what Discord does meanwhile.
 */
describe('steward: a decision counts when it was given', () => {
  let h: Harness;
  let store: EventStore;
  let manager: FakeUser;
  let router: INestApplication | undefined;
  let modId: string;

  const startRouter = async () => {
    ({ app: router } = await startServiceApp(RouterService, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ROUTER_PORT: '0',
      DIRIGENT_ROUTER_QUERY_TIMEOUT_MS: '5000',
    }));
  };
  const stopRouter = async () => {
    await router?.close();
    router = undefined;
  };
  const proposal = async (id: string) => {
    const r = await h.nats.request<{ proposals: ProposalView[] }>(
      Subjects.steward.proposalsList,
      { guildId: h.guild.id },
      10_000,
    );
    return r.ok ? r.data.proposals.find((p) => p.proposalId === id) : undefined;
  };
  const status = (id: string, s: string) =>
    waitFor(
      async () => {
        const p = await proposal(id);
        return p?.status === s ? p : undefined;
      },
      LONG,
      100,
      `proposal ${id} ${s}`,
    );
  /** What `ProposalService.propose` appends: the proposal, pending until `expiresAt`. */
  const propose = async (name: string, ttlMs: number): Promise<ProposalView> => {
    const proposalId = randomUUID();
    const now = Date.now();
    const requested: ProposalEvent = {
      type: 'ProposalRequested',
      data: {
        proposalId,
        guildId: h.guild.id,
        channelId: snowflake(),
        skillId: 'create_channel',
        tool: 'create_channel',
        args: { name },
        reason: 'asked',
        requestedBy: { agentId: 'dit' },
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + ttlMs).toISOString(),
      },
    };
    await store.append(subject.aggregate(Aggregates.proposal, proposalId), [requested], 0);
    return foldProposal([[requested]]).view!;
  };
  const postsOf = (id: string) =>
    h.discord.channelMessages(modId).filter((m) => m.content.includes(`\`${id}\`**`));
  const posted = (id: string) =>
    waitFor(() => postsOf(id)[0], LONG, 100, `the post of ${id}`) as Promise<FakeMessage>;
  const approve = (m: FakeMessage) =>
    h.discord.react({ channelId: m.channelId, messageId: m.id, userId: manager.id, emoji: '✅' });

  beforeAll(async () => {
    h = await startHarness();
    store = new EventStore(h.nats);
    manager = h.discord.createUser({ id: snowflake(), username: 'manager' });
    h.discord.addMember(h.guild.id, manager.id);
    grantManageGuild(h.discord, h.guild.id, manager.id);
    await startRouter();
    modId = (
      await waitFor(
        () =>
          [...h.discord.channels.values()].find(
            (c) => c.guildId === h.guild.id && c.name === 'dit-mod',
          ),
        LONG,
        100,
        'the mod channel',
      )
    ).id;
  }, 120_000);

  afterAll(async () => {
    await stopRouter();
    await h?.stop();
  });

  it('honours a ✅ on a post the router had not recorded when it went down', async () => {
    await stopRouter();
    const name = `kept-${Date.now()}`;
    const view = await propose(name, 3_600_000);
    // The router's post, sent just before it went down (the same de-duplicating id).
    await h.nats.publishEvent(
      Subjects.discord.cmdSendMessage,
      EnvelopeTypes.sendMessage,
      { guildId: h.guild.id, channelId: modId, content: proposalText(view), purpose: 'notice' },
      { id: `proposal-post-${view.proposalId}` },
    );
    const post = await posted(view.proposalId);
    // It had the post's message.created in hand, unacknowledged, when it went down: the event
    // comes back only after its ack wait, while the ✅ given since is delivered at once.
    const consumer = await h.nats.client.js.consumers.get(
      Streams.discordEvents,
      Durables.routerDiscordEvents,
    );
    await waitFor(
      async () => {
        const batch = await consumer.fetch({ max_messages: 100, expires: 1000 });
        let held = false;
        for await (const m of batch) {
          if (m.subject.endsWith('.message.created') && m.string().includes(post.id)) held = true;
        }
        return held;
      },
      LONG,
      100,
      "the post's message.created in hand",
    );
    approve(post);
    await startRouter();
    const done = await status(view.proposalId, 'executed');
    expect(done.decidedBy).toBe(manager.id);
    expect([...h.discord.channels.values()].filter((c) => c.name === name)).toHaveLength(1);
    expect(postsOf(view.proposalId)).toHaveLength(1);
  });

  it('counts a ✅ given within the TTL while the router was down, after the expiry', async () => {
    const name = `in-time-${Date.now()}`;
    const view = await propose(name, 20_000);
    const post = await posted(view.proposalId);
    await waitFor(async () => (await proposal(view.proposalId))?.messageId, LONG, 100, 'recorded');
    await stopRouter();
    approve(post);
    expect(Date.now()).toBeLessThan(Date.parse(view.expiresAt));
    // Down until the TTL is over: the expiry and the ✅ are both processed after it.
    await new Promise((r) =>
      setTimeout(r, Math.max(0, Date.parse(view.expiresAt) - Date.now()) + 1000),
    );
    await startRouter();
    const done = await status(view.proposalId, 'executed');
    expect(done.decidedBy).toBe(manager.id);
    expect([...h.discord.channels.values()].filter((c) => c.name === name)).toHaveLength(1);
  });
});
