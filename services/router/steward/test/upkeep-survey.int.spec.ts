import type { INestApplication } from '@nestjs/common';
import { Subjects, type MemoryEpoch, type ProposalView } from '@dirigent/contracts';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import { startHarness, type Harness } from '../../../discord-ingest/test/harness';
import { RouterService } from '../../router.module';
import { grantManageGuild } from './manage-guild';

const DAY = 86_400_000;
const LONG = 60_000;

/**
 * The upkeep survey's jobs in a router in process, the real ingest and the local Discord,
 * over a generated guild history: memory's epochs (`dirigent.memory.epochs.list`) answered
 * at the wire from a list this test writes, dated back from now.
 */
describe('steward upkeep: proposals from the guild history', () => {
  let h: Harness;
  let router: INestApplication;
  let general: { id: string };
  let old: { id: string };
  let small: { id: string };
  const epochs: MemoryEpoch[] = [];
  let surveys = 0;
  const members = Array.from({ length: 6 }, () => snowflake());

  const epoch = (
    channelId: string,
    daysAgo: number,
    participants: string[],
    topics: string[],
    messageCount = 20,
  ) => {
    const start = Date.now() - daysAgo * DAY;
    epochs.push({
      id: snowflake(),
      channelId,
      startAt: new Date(start).toISOString(),
      endAt: new Date(start + 3_600_000).toISOString(),
      messageCount,
      participants,
      summary: `Talk of ${topics.join(', ') || 'nothing much'}.`,
      topics,
    });
  };

  const list = async (): Promise<ProposalView[]> => {
    const r = await h.nats.request<{ proposals: ProposalView[] }>(
      Subjects.steward.proposalsList,
      { guildId: h.guild.id },
      10_000,
    );
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return r.data.proposals;
  };
  /** A member speaks; the survey it arms runs (memory is asked again). */
  const surveyed = async () => {
    const before = surveys;
    h.discord.postMessage({ channelId: general.id, authorId: h.alice.id, content: 'hello all' });
    await waitFor(() => surveys > before, LONG, 50, 'a survey');
    // Its three jobs read and propose in the guild's lane: let them settle.
    await new Promise((r) => setTimeout(r, 1500));
  };

  beforeAll(async () => {
    h = await startHarness();
    general = h.discord.createChannel(h.guild.id, { name: 'general' });
    old = h.discord.createChannel(h.guild.id, { name: 'old-events' });
    small = h.discord.createChannel(h.guild.id, { name: 'tiny-club' });
    const [a, b, c, d, e] = members;
    // A topic on 3 days by 4 members; one on 2 days only.
    epoch(general.id, 6, [a, b], ['seed swap']);
    epoch(general.id, 5, [c], ['seed swap', 'tomatoes']);
    epoch(general.id, 4, [d], ['Seed swap']);
    epoch(general.id, 5, [a, b, c, d, e], ['tomatoes']);
    // Five members meeting around gardening for 3 weeks; four around compost.
    epoch(general.id, 25, [a, b, c, d, e], ['gardening']);
    epoch(general.id, 2, [a, b, c, d, e], ['gardening']);
    epoch(general.id, 26, [a, b, c, d], ['compost']);
    epoch(general.id, 1, [a, b, c, d], ['compost']);
    // A channel quiet for 40 days after 250 messages; another after 50.
    epoch(old.id, 60, [a, b], ['spring fair'], 150);
    epoch(old.id, 40, [c], ['spring fair'], 100);
    epoch(small.id, 40, [a], [], 50);
    h.nats.client.nc.subscribe(Subjects.memory.epochsList, {
      callback: (_e, m) => {
        const q = m.json<{ guildId: string; channelId?: string }>();
        if (!q.channelId) surveys++;
        const of = epochs
          .filter((x) => !q.channelId || x.channelId === q.channelId)
          .sort((x, y) => y.startAt.localeCompare(x.startAt));
        m.respond(JSON.stringify({ ok: true, data: { epochs: of } }));
      },
    });
    ({ app: router } = await startServiceApp(RouterService, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ROUTER_PORT: '0',
      DIRIGENT_ROUTER_QUERY_TIMEOUT_MS: '5000',
      DIRIGENT_UPKEEP_SURVEY_MS: '1000',
    }));
    grantManageGuild(h.discord, h.guild.id, h.alice.id);
  }, 90_000);

  afterAll(async () => {
    await router?.close();
    await h?.stop();
  });

  it('proposes a topic channel, an archive and a role once each, within the thresholds', async () => {
    await surveyed();
    const all = await waitFor(
      async () => {
        const ps = await list();
        return ps.length >= 3 ? ps : undefined;
      },
      LONG,
      200,
      'three upkeep proposals',
    );
    const byTool = (tool: string) => all.filter((p) => p.tool === tool);
    // "seed swap", "Seed swap": one topic, by its slug.
    expect(byTool('create_channel').map((p) => p.args)).toEqual([
      { name: 'seed-swap', topic: expect.stringMatching(/^seed swap$/i) },
    ]);
    expect(byTool('manage_roles').map((p) => p.args)).toEqual([
      { action: 'create', roleName: 'gardening' },
    ]);
    const archives = byTool('propose_restructure');
    expect(archives.map((p) => (p.args as { steps: string[] }).steps)).toEqual([
      ['archive #old-events'],
    ]);
    expect(archives[0].channelId).toBe(old.id);
    expect(String(archives[0].args.summary)).toContain('spring fair');
    expect(all).toHaveLength(3);

    // Surveyed again: nothing more while they are pending.
    await surveyed();
    expect(await list()).toHaveLength(3);
  });

  it('does not ask a rejected proposal again', async () => {
    const [channel] = (await list()).filter((p) => p.tool === 'create_channel');
    const r = await h.nats.request<ProposalView>(
      Subjects.admin.stewardDecide,
      { proposalId: channel.proposalId, approve: false, actorUserId: h.alice.id },
      10_000,
    );
    expect(r).toMatchObject({ ok: true, data: { status: 'rejected' } });
    await surveyed();
    await surveyed();
    const again = (await list()).filter((p) => p.tool === 'create_channel');
    expect(again.map((p) => p.status)).toEqual(['rejected']);
  });
});
