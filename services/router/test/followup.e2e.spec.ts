import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { Durables, Streams, Subjects, subject, type MessageCreated } from '@dirigent/contracts';
import { ormConfig } from '@dirigent/persistence';
import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
import {
  closeMessaging,
  snowflake,
  spawnService,
  testDatabaseUrl,
  testMessaging,
  testNatsUrl,
  waitFor,
  type Spawned,
} from '@dirigent/testing';
import type { Messaging } from '@dirigent/messaging';
import { FakeUpstream } from '../../llm-gateway/test/fake-upstreams';
import { startGateway, type RunningGateway } from '../../llm-gateway/test/harness';
import { nextSnowflake } from '../../turn-coordinator/test/fake-ingest';
import { FakeDiscord } from './fake-discord';
import { gatewayConfig } from './harness';

const MAIN = 'dist/services/router/main.js';
/** A follow-up's window: long enough for a turn and a reply before it comes due. */
const WINDOW_MS = 8000;

/**
 * The built router as a child process, SIGKILLed with plans pending (`npm run build`
 * first): self-follow-ups and speculative timers armed before the kill come due after the
 * restart, and what they read is what the durable streams hold, not what the dead process saw.
 */
describe('router: plans survive SIGKILL', () => {
  let upstream: FakeUpstream;
  let gateway: RunningGateway;
  let messaging: Messaging;
  let discord: FakeDiscord;
  let child: Spawned | undefined;
  const events: { subject: string; data: any }[] = [];
  /** Every message.created seen, the bot's echoes included (their ids are reply targets). */
  const created: MessageCreated[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'router-e2e-'));
  writeFileSync(
    join(dir, 'router.yaml'),
    [
      'agents:\n  - { id: dit, name: Dit }',
      'speculative: { enabled: true, quietMs: 3000, minSinceBotTurnMs: 0, chance: 1, minBudgetFraction: 0 }',
      'followups: { enabled: true, midThoughtMs: 0 }',
    ].join('\n'),
  );

  const start = async () => {
    child = await spawnService(
      MAIN,
      'ROUTER_PORT',
      {
        NATS_URL: testNatsUrl(),
        DATABASE_URL: testDatabaseUrl(),
        LOG_LEVEL: 'warn',
        DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
        DIRIGENT_WORKSPACE: dir,
      },
      // Generous: a loaded machine starts a process slowly.
      90_000,
    );
  };

  /** Only `speaking` is chosen (speculative turns: `speculative`, else silence). */
  async function weights(speaking: string, speculative?: string) {
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await messaging.request<any>(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: d.id === speaking || d.id === speculative ? 1 : 0,
        ...(d.id === 'quick-react'
          ? {
              selfFollowupHint: {
                probability: 1,
                bias: 'go-deeper',
                windowMs: [WINDOW_MS, WINDOW_MS],
              },
            }
          : {}),
      });
      expect(r.ok).toBe(true);
    }
  }

  const followups = (channel: string, status: string) =>
    events.filter((e) => e.subject.endsWith(`${channel}.followup`) && e.data.status === status);
  const decisionOn = (channel: string, messageId: string) =>
    events.find(
      (e) => e.subject.endsWith(`${channel}.decision`) && e.data.inboundMessageId === messageId,
    );

  /** A human asks Dit; its answer schedules a follow-up. Returns it and the bot's message. */
  async function scheduled(guild: string, channel: string) {
    await discord.human(guild, channel, 'dit, quick question');
    const f = await waitFor(() => followups(channel, 'scheduled')[0], 15_000);
    const bot = created.find((m) => m.channelId === channel && m.authorIsBot)!;
    return { followup: f.data, bot };
  }

  async function untilDue(dueAt: string) {
    const wait = Date.parse(dueAt) + 500 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }

  beforeAll(async () => {
    upstream = await FakeUpstream.start('openai');
    upstream.behave = () => ({ kind: 'ok', text: 'first thought' });
    gateway = await startGateway(gatewayConfig(upstream));
    messaging = await testMessaging('router-e2e');
    discord = new FakeDiscord(messaging);
    await discord.start();
    messaging.client.nc.subscribe(Subjects.router.evtAll, {
      callback: (_e, m) => {
        events.push({ subject: m.subject, data: m.json<any>().data });
      },
    });
    messaging.client.nc.subscribe(`${Subjects.discord.evtPrefix}.*.*.message.created`, {
      callback: (_e, m) => {
        created.push(m.json<any>().data);
      },
    });
    await start();
  });

  afterAll(async () => {
    await child?.kill('SIGKILL');
    await discord?.stop();
    await gateway?.close();
    await upstream?.close();
    if (messaging) await closeMessaging(messaging);
  });

  it('a follow-up fires after the restart, once', async () => {
    await weights('quick-react');
    const guild = snowflake();
    const channel = snowflake();
    await discord.human(guild, channel, 'dit, quick question');
    const scheduled = await waitFor(() => followups(channel, 'scheduled')[0], 15_000);
    await child!.kill('SIGKILL');
    upstream.behave = () => ({ kind: 'ok', text: 'the deeper take' });
    await start();
    const fired = await waitFor(() => followups(channel, 'fired')[0], 20_000);
    expect(fired.data.followupId).toBe(scheduled.data.followupId);
    const decision = await waitFor(
      () =>
        events.find(
          (e) => e.subject.endsWith(`${channel}.decision`) && e.data.trigger === 'self-followup',
        ),
      10_000,
    );
    expect(decision.data.followupId).toBe(scheduled.data.followupId);
    // The timer armed before the SIGKILL still names the decision that armed it.
    expect(decision.data.lineage).toMatchObject({
      job: 'self-followup',
      trigger: 'timer',
      parentId: scheduled.data.parentDecisionId,
    });
    await waitFor(
      () => discord.sent(channel).some((c) => c.data.content === 'the deeper take'),
      10_000,
    );
    // The shortest wait that would show a second firing: one more timer round trip.
    await new Promise((r) => setTimeout(r, 1000));
    expect(followups(channel, 'fired')).toHaveLength(1);
    upstream.behave = () => ({ kind: 'ok', text: 'first thought' });
  });

  /**
   * A burst of three beats with its first beat out and its echo held, then (optionally) a
   * human message claimed by it, and a SIGKILL once the router acknowledged everything.
   */
  async function burstKilled(
    guild: string,
    channel: string,
    interruption?: string,
    whileDown?: () => Promise<void>,
  ) {
    await weights('settle-debate');
    upstream.behave = () => ({ kind: 'ok', text: 'one\n\ntwo\n\nthree' });
    discord.hold();
    await discord.human(guild, channel, 'dit, settle this: tabs or spaces?');
    // The first beat is out and its delivery held: the burst is running.
    await waitFor(() => discord.sent(channel).length === 1, 15_000);
    const interrupter = interruption ? await discord.human(guild, channel, interruption) : null;
    await waitFor(async () => {
      const i = await messaging.client.jsm.consumers.info(
        Streams.discordEvents,
        Durables.routerDiscordEvents,
      );
      return i.num_pending === 0 && i.num_ack_pending === 0;
    });
    await child!.kill('SIGKILL');
    await discord.release();
    await whileDown?.();
    upstream.behave = () => ({ kind: 'ok', text: 'a new answer' });
    await start();
    const parent = events.find(
      (e) => e.subject.endsWith(`${channel}.decision`) && e.data.trigger === 'reactive',
    )!;
    return { interrupter, parent: parent.data };
  }
  const texts = (channel: string) => discord.sent(channel).map((c) => c.data.content);

  it('a topic change that interrupted a burst before a SIGKILL aborts it after the restart', async () => {
    const guild = snowflake();
    const channel = snowflake();
    const { interrupter, parent } = await burstKilled(guild, channel, 'wait, what about rust?');
    const d = await waitFor(() => decisionOn(channel, interrupter!.messageId), 20_000);
    // Judged from the message, as the running process would have: not a new message.
    expect(d.data).toMatchObject({
      agentId: 'dit',
      trigger: 'interruption',
      parentDecisionId: parent.decisionId,
      interrupted: { atBeat: 1, action: 'abort' },
    });
    await waitFor(() => texts(channel).includes('a new answer'), 15_000);
    expect(texts(channel)).not.toContain('two');
    upstream.behave = () => ({ kind: 'ok', text: 'first thought' });
  });

  it('agreement that interrupted a burst before a SIGKILL lets its beats go on after it', async () => {
    const guild = snowflake();
    const channel = snowflake();
    const { interrupter } = await burstKilled(guild, channel, 'exactly');
    const d = await waitFor(() => decisionOn(channel, interrupter!.messageId), 20_000);
    expect(d.data).toMatchObject({
      trigger: 'interruption',
      interrupted: { atBeat: 1, action: 'continue' },
    });
    await waitFor(() => texts(channel).includes('three'), 15_000);
    expect(texts(channel)).toEqual(['one', 'two', 'three']);
    upstream.behave = () => ({ kind: 'ok', text: 'first thought' });
  });

  it('a burst cut by a SIGKILL sends its beats still due after the restart, once', async () => {
    const guild = snowflake();
    const channel = snowflake();
    await burstKilled(guild, channel);
    await waitFor(() => texts(channel).includes('three'), 20_000);
    // The shortest wait that would show a beat sent twice: one more delivery round trip.
    await new Promise((r) => setTimeout(r, 1000));
    expect(texts(channel)).toEqual(['one', 'two', 'three']);
    upstream.behave = () => ({ kind: 'ok', text: 'first thought' });
  });

  it('a burst cut by a SIGKILL long ago stops visibly at the restart, its beats withheld', async () => {
    const guild = snowflake();
    const channel = snowflake();
    // What a router down for eleven minutes finds: a decision older than the resume window.
    const elevenMinutesAgo = async () => {
      const orm = await MikroORM.init(ormConfig(testDatabaseUrl()));
      try {
        await orm.em
          .getConnection()
          .execute(
            `update "disposition_decisions" set "at" = now() - interval '11 minutes' where "channel_id" = ?`,
            [channel],
          );
      } finally {
        await orm.close();
      }
    };
    const { parent } = await burstKilled(guild, channel, undefined, elevenMinutesAgo);
    const stopped = await waitFor(
      () => events.find((e) => e.subject.endsWith(`${channel}.burst-stopped`)),
      20_000,
    );
    expect(stopped.data).toMatchObject({
      decisionId: parent.decisionId,
      reason: 'not-delivered',
      beat: 1,
      withheld: 2,
    });
    expect(texts(channel)).toEqual(['one']);
    upstream.behave = () => ({ kind: 'ok', text: 'first thought' });
  });

  it('a human reply the router saw before a SIGKILL aborts the follow-up after the restart', async () => {
    await weights('quick-react');
    const guild = snowflake();
    const channel = snowflake();
    const { followup, bot } = await scheduled(guild, channel);
    const reply = await discord.human(guild, channel, 'good point', {
      replyToMessageId: bot.messageId,
    });
    // Seen: the router decided on the reply.
    await waitFor(() => decisionOn(channel, reply.messageId), 15_000);
    await child!.kill('SIGKILL');
    await untilDue(followup.dueAt);
    await start();
    const aborted = await waitFor(
      () => followups(channel, 'aborted').find((e) => e.data.followupId === followup.followupId),
      20_000,
    );
    expect(aborted.data.reason).toBe('human-replied');
    expect(followups(channel, 'fired').map((e) => e.data.followupId)).not.toContain(
      followup.followupId,
    );
  });

  it('a human reply sent while the router is down aborts the follow-up too', async () => {
    await weights('quick-react');
    const guild = snowflake();
    const channel = snowflake();
    const { followup, bot } = await scheduled(guild, channel);
    await child!.kill('SIGKILL');
    await discord.human(guild, channel, 'good point', { replyToMessageId: bot.messageId });
    await untilDue(followup.dueAt);
    await start();
    const aborted = await waitFor(
      () => followups(channel, 'aborted').find((e) => e.data.followupId === followup.followupId),
      20_000,
    );
    expect(aborted.data.reason).toBe('human-replied');
  });

  it('a message acknowledged before its turn ran is answered after a SIGKILL, once', async () => {
    await weights('quick-react');
    const guild = snowflake();
    const channel = snowflake();
    await child!.kill('SIGKILL');
    // What a SIGKILL right after the acknowledgement leaves: the message in the router's
    // inbox, open, and no decision on it.
    const m: MessageCreated = {
      guildId: guild,
      channelId: channel,
      messageId: nextSnowflake(),
      authorId: '700000000000000001',
      authorIsBot: false,
      content: 'dit, are you there?',
      createdAt: new Date().toISOString(),
      authorName: 'jen',
    };
    const orm = await MikroORM.init(ormConfig(testDatabaseUrl()));
    try {
      await orm.em
        .getConnection()
        .execute(
          `insert into "router_inbound" ("message_id", "guild_id", "channel_id", "event_id", "message", "received_at") values (?, ?, ?, ?, ?, now())`,
          [m.messageId, guild, channel, `discord:${m.messageId}`, JSON.stringify(m)],
        );
      await start();
      await waitFor(() => decisionOn(channel, m.messageId), 30_000);
      // Settled once its turns have run.
      await waitFor(async () => {
        const [row] = await orm.em
          .getConnection()
          .execute(`select "settled_at" from "router_inbound" where "message_id" = ?`, [
            m.messageId,
          ]);
        return row.settled_at !== null;
      }, 30_000);
    } finally {
      await orm.close();
    }
    // The same message delivered again (a redelivery) is a no-op; a later one is answered.
    await messaging.publishEvent(
      subject.discordEvent(guild, channel, 'message.created'),
      'message.created',
      m,
      { id: `discord:${m.messageId}:again` },
    );
    const later = await discord.human(guild, channel, 'dit, still there?');
    await waitFor(() => decisionOn(channel, later.messageId), 30_000);
    const onFirst = events.filter(
      (e) => e.subject.endsWith(`${channel}.decision`) && e.data.inboundMessageId === m.messageId,
    );
    expect(onFirst).toHaveLength(1);
  });

  it('a speculative timer armed before a SIGKILL fires after the restart', async () => {
    // Dit reacts to the message (no follow-up), then the channel is quiet for quietMs.
    await weights('vibing', 'observation-drop');
    upstream.behave = () => ({ kind: 'ok', text: 'an unprompted thought' });
    const guild = snowflake();
    const channel = snowflake();
    const asked = await discord.human(guild, channel, 'anyone around?');
    await waitFor(() => decisionOn(channel, asked.messageId), 15_000);
    await child!.kill('SIGKILL');
    // The timer came due while nothing ran.
    await new Promise((r) => setTimeout(r, 3500));
    await start();
    const speculative = await waitFor(
      () =>
        events.find(
          (e) => e.subject.endsWith(`${channel}.decision`) && e.data.trigger === 'speculative',
        ),
      60_000,
    );
    expect(speculative.data.chosen).toBe('observation-drop');
    expect(speculative.data.lineage).toMatchObject({ job: 'speculative-turn', trigger: 'all' });
  });
});
