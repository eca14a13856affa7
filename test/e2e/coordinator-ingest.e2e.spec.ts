import type { INestApplication } from '@nestjs/common';
import { DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import { Streams, Subjects, subject, type Envelope, type TurnGranted } from '@dirigent/contracts';
import type { FakeChannel, FakeMessage, FakeUser } from '@dirigent/discord-fake';
import { RelayClient } from '@dirigent/relay-client';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl, uid, waitFor } from '@dirigent/testing';
import { readStream, startHarness, type Harness } from '../../services/discord-ingest/test/harness';
import { TurnCoordinatorService } from '../../services/turn-coordinator/turn-coordinator.module';

const IDENTIFIER = '➡️';

interface Agent {
  agentId: string;
  user: FakeUser;
}

const agentId = (prefix: string) => uid(prefix).replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * Issue 4's "together" test: the real Discord ingest (discord.js against the local Discord)
 * and the real turn coordinator, in-process on the test file's NATS and Postgres. Three agent
 * bot accounts and a human share a chat channel; at every hand-off the coordinator grants
 * the next speaker and the moderator bot posts the schedule identifier, which the ingest
 * deletes right after sending it.
 */
describe('turn coordinator + discord ingest against the local Discord', () => {
  let h: Harness;
  let coordinator: INestApplication | undefined;
  let relay: RelayClient;
  let grantFeed: ConsumerMessages | undefined;
  let grantLoop: Promise<void> | undefined;
  let channel: FakeChannel;
  let human: FakeUser;
  let agents: Agent[];
  const grants: TurnGranted[] = [];
  /** The moderator's messages in the channel, in the order the local Discord stored them. */
  const moderatorMessages: FakeMessage[] = [];
  const deleted = new Set<string>();
  /** The speaker list the coordinator built when the channel entered chat mode. */
  let order: string[] = [];

  const byAgentId = (id: string) => agents.find((a) => a.agentId === id)!;
  const identifiers = () => moderatorMessages.filter((m) => m.content.includes(IDENTIFIER));
  const view = async () => {
    const reply = await h.nats.request<Record<string, any>>(
      Subjects.admin.channelGet,
      { channelId: channel.id },
      10_000,
    );
    if (!reply.ok) throw new Error(`channel.get: ${JSON.stringify(reply.error)}`);
    return reply.data;
  };
  /**
   * Waits for the channel view to show `expected`: the coordinator applies completions and
   * hand-offs after the call that caused them has returned, so the view is polled.
   */
  const settled = (expected: Record<string, unknown>, what: string) =>
    waitFor(
      async () => {
        const v = await view();
        return Object.entries(expected).every(([k, value]) => v[k] === value) && v;
      },
      15_000,
      50,
      what,
    );
  const admin = async <T = unknown>(subj: string, data: Record<string, unknown>) => {
    const reply = await h.nats.request<T>(subj, data, 10_000);
    if (!reply.ok) throw new Error(`${subj}: ${JSON.stringify(reply.error)}`);
    return reply.data;
  };

  beforeAll(async () => {
    h = await startHarness();
    const { discord } = h;
    human = h.alice;
    agents = ['ada', 'bo', 'cy'].map((name) => ({
      agentId: agentId(`ci-${name}`),
      user: discord.createUser({ id: snowflake(), username: `agent-${name}`, bot: true }),
    }));
    for (const a of agents) discord.addMember(h.guild.id, a.user.id);
    channel = discord.createChannel(h.guild.id, { id: snowflake(), name: 'together' });
    discord.on('messageCreated', (m: FakeMessage) => {
      if (m.channelId === channel.id && m.authorId === discord.bot.id) moderatorMessages.push(m);
    });
    discord.on('messageDeleted', (m: FakeMessage) => {
      if (m.channelId === channel.id) deleted.add(m.id);
    });

    ({ app: coordinator } = await startServiceApp(TurnCoordinatorService, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      TURN_COORDINATOR_PORT: '0',
      DIRIGENT_WORKSPACE: '',
      // The ingest's bot user is the moderator: its own identifiers never wake the channel.
      DIRIGENT_MODERATOR_USER_ID: discord.bot.id,
      // Long enough that only a confirmed delivery moves the turn on a real reply.
      DIRIGENT_DELIVERY_TIMEOUT_MS: '30000',
    }));
    relay = await RelayClient.using(h.nats.client.nc, { name: 'coordinator-ingest-e2e' });

    // An ordered (ephemeral) consumer: every grant of this channel as stored in JetStream.
    const consumer = await h.nats.client.js.consumers.get(Streams.turnGranted, {
      filter_subjects: subject.turnGranted(channel.id),
      deliver_policy: DeliverPolicy.All,
    });
    const feed = await consumer.consume();
    grantFeed = feed;
    grantLoop = (async () => {
      for await (const m of feed) grants.push(m.json<Envelope<TurnGranted>>().data);
    })();

    for (const a of agents) {
      await admin(Subjects.admin.identityUpsert, {
        discordUserId: a.user.id,
        agentId: a.agentId,
        agentName: a.user.username,
      });
    }
  });

  afterAll(async () => {
    await grantFeed?.close().catch(() => undefined);
    await grantLoop?.catch(() => undefined);
    await relay?.close().catch(() => undefined);
    await coordinator?.close().catch(() => undefined);
    // Closes the ingest and stops the local Discord.
    await h?.stop();
  });

  /** Waits for the n-th grant (0-based), its schedule identifier, and that identifier's deletion. */
  async function handOff(
    n: number,
  ): Promise<{ grant: TurnGranted; agent: Agent; identifier: FakeMessage }> {
    const grant = await waitFor(() => grants[n], 15_000, 25, `grant #${n + 1}`);
    const agent = byAgentId(grant.agentId);
    expect(agent).toBeDefined();
    const identifier = await waitFor(
      () => identifiers()[n],
      15_000,
      25,
      `schedule identifier #${n + 1}`,
    );
    expect(identifier).toMatchObject({
      authorId: h.discord.bot.id,
      content: `<@${agent.user.id}> ${IDENTIFIER}`,
    });
    expect(identifier.webhookId).toBeUndefined();
    await waitFor(() => deleted.has(identifier.id), 15_000, 25, `deletion of identifier #${n + 1}`);
    // The ingest sent it with the bot's token and deleted it through the REST API.
    const path = `/channels/${channel.id}/messages`;
    expect(
      h.discord.requests.some(
        (r) => r.method === 'POST' && r.path === path && r.body?.content === identifier.content,
      ),
    ).toBe(true);
    expect(
      h.discord.requests.some(
        (r) => r.method === 'DELETE' && r.path === `${path}/${identifier.id}` && r.status === 204,
      ),
    ).toBe(true);
    return { grant, agent, identifier };
  }

  /**
   * The granted agent takes its turn: checks it, says `text` in Discord unless empty, and
   * completes it. The check names the identifier that woke the agent, as a runtime woken by
   * Discord would: the coordinator answers once it has seen that message.
   */
  async function answer(
    { grant, agent, identifier }: { grant: TurnGranted; agent: Agent; identifier: FakeMessage },
    text: string,
  ): Promise<void> {
    const check = await relay.checkTurn({
      guildId: h.guild.id,
      channelId: channel.id,
      agentId: agent.agentId,
      messageId: identifier.id,
    });
    expect(check).toMatchObject({ allowed: true, currentSpeaker: agent.agentId, mode: 'chat' });
    if (text !== 'NO_REPLY') {
      h.discord.postMessage({ channelId: channel.id, authorId: agent.user.id, content: text });
    }
    await relay.completeTurn({
      guildId: h.guild.id,
      channelId: channel.id,
      agentId: agent.agentId,
      runId: uid('run'),
      text,
      turnId: grant.turnId,
    });
  }

  it('puts the channel in chat mode, dormant, with the three agents as speakers', async () => {
    // A fixed order (no shuffle), so every cycle must follow the same speaker list.
    await admin(Subjects.admin.channelSetShuffle, {
      guildId: h.guild.id,
      channelId: channel.id,
      shuffle: false,
    });
    const target = { guildId: h.guild.id, channelId: channel.id };
    const v = await admin<Record<string, any>>(Subjects.admin.channelSetMode, {
      ...target,
      mode: 'chat',
    });
    expect(v).toMatchObject({ mode: 'chat', tmState: 'normal', dormant: true });
    expect([...v.speakers].sort()).toEqual(agents.map((a) => a.agentId).sort());
    order = v.speakers;
    await settled({ mode: 'chat', dormant: true, currentSpeaker: null }, 'a dormant chat channel');
    expect(grants).toHaveLength(0);
    expect(identifiers()).toHaveLength(0);
  });

  /** The channel aggregate's stored events, to explain a failure. */
  const history = async () =>
    (await readStream(h.nats, Streams.eventStore, subject.aggregate('channel', channel.id)))
      .map((e) => `${e.type} ${JSON.stringify(e.data)}`)
      .join('\n');

  /** Runs `body`; when it fails, the error carries the channel's events and grants. */
  const explained = async (body: () => Promise<void>) => {
    try {
      await body();
    } catch (e) {
      const err = e as Error;
      err.message += `\n\ngrants:\n${grants.map((g) => JSON.stringify(g)).join('\n')}`;
      err.message += `\n\nchannel events:\n${await history().catch((x) => String(x))}`;
      throw err;
    }
  };

  it('hands the turn on with an identifier each time, then rests after an empty cycle', () =>
    explained(async () => {
      h.discord.postMessage({ channelId: channel.id, authorId: human.id, content: 'hello agents' });

      const first = await handOff(0);
      expect(first.grant.reason).toBe('wake');

      // Cycle one: every agent replies for real; cycle two: everyone passes.
      for (let n = 0; n < 6; n++) {
        const turn = n === 0 ? first : await handOff(n);
        expect(turn.grant.agentId).toBe(order[n % 3]);
        const said = `${turn.agent.user.username} has a considered answer in turn ${n + 1}.`;
        await answer(turn, n < 3 ? said : 'NO_REPLY');
      }

      await settled({ dormant: true, currentSpeaker: null }, 'dormancy');
      expect(grants.map((g) => g.agentId)).toEqual([...order, ...order]);
      expect(new Set(grants.map((g) => g.turnId)).size).toBe(6);
      expect(grants.slice(0, 3).every((g) => g.cycle === grants[0].cycle)).toBe(true);
      expect(grants.slice(3).every((g) => g.cycle === grants[0].cycle + 1)).toBe(true);

      // The next human message is a barrier: the coordinator's effects run in order per
      // channel, so an identifier sent while dormant would come before the wake's.
      h.discord.postMessage({ channelId: channel.id, authorId: human.id, content: 'still there?' });
      const woken = await handOff(6);
      expect(woken.grant).toMatchObject({ reason: 'wake', agentId: order[0] });
      expect(grants).toHaveLength(7);
      expect(identifiers()).toHaveLength(7);

      // Everyone passes again: dormant again, and no identifier left in the channel.
      await answer(woken, 'NO_REPLY');
      for (let n = 7; n < 9; n++) {
        const turn = await handOff(n);
        expect(turn.grant.agentId).toBe(order[n % 3]);
        await answer(turn, 'NO_REPLY');
      }
      await settled({ dormant: true, currentSpeaker: null }, 'dormancy again');
      expect(grants).toHaveLength(9);
      const left = h.discord.channelMessages(channel.id);
      expect(left.some((m) => m.content.includes(IDENTIFIER))).toBe(false);
      expect(left.map((m) => m.authorId)).toEqual([
        human.id,
        ...order.map((id) => byAgentId(id).user.id),
        human.id,
      ]);
      expect(identifiers().every((m) => deleted.has(m.id))).toBe(true);
    }));
});
