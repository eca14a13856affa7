import { MikroORM } from '@mikro-orm/postgresql';
import { Streams, subject as subjects } from '@dirigent/contracts';
import { EventStore, ProjectionRunner } from '@dirigent/event-store';
import { ormConfig } from '@dirigent/persistence';
import { closeMessaging, snowflake, testDatabaseUrl, testMessaging, uid } from '@dirigent/testing';
import type { AgentRef, ChannelEvent } from '@dirigent/turn-domain';
import { channelProjection } from '../services/turn-coordinator/adapters/projections/projections';
import { round, type BenchResult } from './stats';

const CHANNELS = 50;
/** Turns per channel: three commits each (grant; completion; delivery seen). */
const TURNS = 40;

/** A chat channel's life as the coordinator commits it: created, then turn after turn. */
function channelCommits(guildId: string, channelId: string): ChannelEvent[][] {
  const agents: AgentRef[] = [0, 1, 2].map((i) => ({
    agentId: `bench-agent-${i}`,
    discordUserId: snowflake(),
  }));
  const ids = agents.map((a) => a.agentId);
  const commits: ChannelEvent[][] = [
    [
      {
        type: 'ChannelCreated',
        data: { channelId, guildId, mode: 'chat', createdByAgentId: null },
      },
      { type: 'MembersRefreshed', data: { members: agents, joined: ids, left: [] } },
      {
        type: 'SpeakerListRebuilt',
        data: {
          reason: 'created',
          speakers: agents,
          added: ids,
          removed: [],
          tmState: 'normal',
          shuffled: false,
          seed: null,
          avoidFirst: null,
        },
      },
    ],
  ];
  for (let t = 0; t < TURNS; t++) {
    const a = agents[t % agents.length];
    const turnId = `${channelId}:${t}`;
    const messageId = snowflake();
    commits.push(
      [
        {
          type: 'TurnGranted',
          data: {
            turnId,
            agentId: a.agentId,
            discordUserId: a.discordUserId,
            cycle: Math.floor(t / agents.length),
            position: t % agents.length,
            reason: 'advance',
            anchorMessageId: null,
          },
        },
      ],
      [
        {
          type: 'TurnCompleted',
          data: {
            turnId,
            agentId: a.agentId,
            runId: uid('run'),
            outcome: 'real',
            tailFingerprint: 'x',
          },
        },
        {
          type: 'DeliveryWaitStarted',
          data: {
            turnId,
            agentId: a.agentId,
            discordUserId: a.discordUserId,
            anchorMessageId: null,
            tailFingerprint: 'x',
            timeoutMs: 30_000,
          },
        },
      ],
      [
        {
          type: 'MessageSeen',
          data: {
            messageId,
            authorId: a.discordUserId,
            authorKind: 'agent',
            agentId: a.agentId,
            tail: 'a reply',
            reaction: 'none',
          },
        },
        { type: 'DeliveryConfirmed', data: { turnId, agentId: a.agentId, messageId } },
      ],
    );
  }
  return commits;
}

/**
 * The channel projection catching up with a backlog: synthetic channel commits under an
 * aggregate of their own (so the running coordinator's reactor never sees them), then the
 * real channel projection from checkpoint 0 until it has applied the last one.
 */
export async function benchProjection(): Promise<BenchResult> {
  const messaging = await testMessaging(uid('bench-projection'));
  const orm = await MikroORM.init(ormConfig(testDatabaseUrl()));
  const store = new EventStore(messaging);
  const aggregate = uid('bench_channel').replace(/-/g, '_');
  const name = `bench-projection-${aggregate}`;
  const guildId = snowflake();
  const channelIds = Array.from({ length: CHANNELS }, () => snowflake());
  try {
    let last = 0;
    let commits = 0;
    await Promise.all(
      channelIds.map(async (channelId) => {
        let version = 0;
        for (const events of channelCommits(guildId, channelId)) {
          version = await store.append(subjects.aggregate(aggregate, channelId), events, version);
          commits++;
        }
        last = Math.max(last, version);
      }),
    );
    const runner = new ProjectionRunner(messaging, orm.em, {
      ...channelProjection,
      name,
      filterSubject: subjects.aggregate(aggregate, '>'),
    });
    const started = process.hrtime.bigint();
    await runner.start();
    const caughtUp = await runner.reached(last, 120_000);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await runner.stop();
    if (!caughtUp) throw new Error(`projection did not reach ${last} in 120 s`);
    return {
      'projection backlog (commits)': commits,
      'projection catch-up (commits/s)': round(commits / seconds, 0),
    };
  } finally {
    const conn = orm.em.getConnection();
    const ids = channelIds.map(() => '?').join(', ');
    await conn.execute(`delete from tc_turn_event where channel_id in (${ids})`, channelIds);
    await conn.execute(`delete from tc_channel where channel_id in (${ids})`, channelIds);
    await conn.execute(`delete from projection_checkpoint where name = ?`, [name]);
    await messaging.client.jsm.streams
      .purge(Streams.eventStore, { filter: subjects.aggregate(aggregate, '>') })
      .catch(() => undefined);
    await closeMessaging(messaging);
    await orm.close(true);
  }
}
