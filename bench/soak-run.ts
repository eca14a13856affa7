/**
 * The soak's engine (`npm run soak`, and the replica figures of `npm run bench`): N channels
 * of scripted relay-client agents talk through the built coordinator (child processes, one
 * per replica) on a nats-server and a scratch database of its own, while a replica is
 * SIGKILLed every K seconds and restarted at once (the replicas in turn), optionally with the
 * nats-server restarted while it is down. Counts turns, double grants (a second grant while
 * one is open), repeated grants, check-turn refusals of the granted speaker, stuck channels
 * (no grant for more than 30 s) and the takeover time after a kill (kill → the next grant of
 * a channel of the killed replica that was waiting for one).
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { Buckets, Subjects, subject, type Envelope, type TurnGranted } from '@dirigent/contracts';
import { Messaging, NatsClient, partitionOf } from '@dirigent/messaging';
import { EventStore } from '@dirigent/event-store';
import { migrate } from '@dirigent/persistence';
import type { ChannelEvent } from '@dirigent/turn-domain';
import { RelayClient, type GrantedEvent } from '@dirigent/relay-client';
import { snowflake, testDatabaseUrl } from '@dirigent/testing';
import { createScratchDatabase } from '../libs/testing/src/private-services';
import { FakeIngest } from '../services/turn-coordinator/test/fake-ingest';
import { knex } from 'knex';
import { CostMeter } from './soak-cost';
import { Coordinator, patiently, sleep, SoakNats, soakLog } from './soak-processes';
import { SoakLedger } from './soak-ledger';

const STUCK_AFTER_MS = 30_000;
const AGENTS_PER_CHANNEL = 3;
const log = soakLog;

export { soakLog };

export interface SoakOptions {
  channels: number;
  /** 0: no kills (a throughput run). */
  killEveryS: number;
  durationS: number;
  /** Coordinator replicas (child processes). */
  replicas: number;
  /** DIRIGENT_COORDINATOR_PARTITIONS of every replica (0: not partitioned). */
  partitions: number;
  /** Restart the soak's nats-server, while the killed replica is down, every this many kills. */
  natsRestartEveryKills: number;
  /** A killed replica comes back under a new id, so that only another replica takes over. */
  freshIds: boolean;
  /** Use NATS_URL instead of a nats-server of the soak's own (no NATS restarts then). */
  keepNatsUrl: boolean;
}

/** What a soak run counted; `failed` when any correctness figure is not zero. */
export type SoakReport = Record<string, number | string> & { failed: number };

/** Prints the commits of channels that were slow after a kill, around the kill. */
async function diagnose(messaging: Messaging, slow: Map<string, number>): Promise<void> {
  const store = new EventStore(messaging);
  for (const [channelId, killedAt] of slow) {
    const commits = await store.loadCommits<ChannelEvent>(`dirigent.es.channel.${channelId}`);
    const near = commits.filter(
      (c) =>
        Date.parse(c.envelope.at) > killedAt - 3000 &&
        Date.parse(c.envelope.at) < killedAt + 12_000,
    );
    log(`channel ${channelId}, waiting since ${new Date(killedAt).toISOString()}:`);
    for (const c of near) {
      const events = c.envelope.data.events.map((e) => {
        const d = (e.data ?? {}) as Record<string, unknown>;
        const keys = ['turnId', 'agentId', 'messageId', 'authorKind', 'phase', 'reason'];
        const shown = keys.filter((k) => d[k] !== undefined).map((k) => `${k}=${String(d[k])}`);
        return `${e.type}(${shown.join(' ')})`;
      });
      log(`  ${c.seq} ${c.envelope.at} ${c.envelope.source} ${events.join(', ')}`);
    }
  }
}

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const { channels: channelCount, killEveryS, durationS } = o;
  const nats = o.keepNatsUrl ? null : await SoakNats.start();
  const natsUrl = nats?.url ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const db = await createScratchDatabase(testDatabaseUrl());
  await migrate(db.url);
  log(`nats ${natsUrl}, database ${db.name}`);

  const client = await NatsClient.connect({ url: natsUrl, name: 'soak' });
  const quiet = () => undefined;
  const messaging = new Messaging(client, 'soak', { info: quiet, warn: quiet, error: quiet });
  const fake = new FakeIngest(messaging, snowflake());
  await fake.start();
  const relay = await RelayClient.using(client.nc, { name: 'soak-agents', requestTimeoutMs: 3000 });
  const env = (): Record<string, string> => ({
    NATS_URL: natsUrl,
    DATABASE_URL: db.url,
    TURN_COORDINATOR_PORT: '0',
    LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'error',
    DIRIGENT_MODERATOR_USER_ID: fake.moderatorId,
    DIRIGENT_DISCORD_RPC_TIMEOUT_MS: '1000',
    // Scripted agents talk without people: the loop breaker would park channels between
    // the occasional human messages, and a parked channel is not a stuck one.
    DIRIGENT_MAX_CYCLES_WITHOUT_HUMAN: process.env.SOAK_MAX_CYCLES_WITHOUT_HUMAN ?? '0',
    DIRIGENT_WORKSPACE: resolve('.dirigent/soak-workspace'),
    DIRIGENT_COORDINATOR_PARTITIONS: String(o.partitions),
  });
  const coordinators = Array.from(
    { length: o.replicas },
    (_, i) => new Coordinator(env(), process.env.SOAK_LOG_FILE, `soak-r${i}`),
  );
  const coordinator = coordinators[0];
  let restarts = 0;
  const ledger = new SoakLedger(STUCK_AFTER_MS);
  let running = true;
  const cleanups: (() => Promise<unknown>)[] = [];
  /** The channels whose partition `replicaId` holds a lease on (all when not partitioned). */
  const channelsOf = async (replicaId: string, channels: string[]) => {
    if (o.partitions === 0) return undefined;
    // The replicas created the bucket (with its TTL) long before the first kill.
    const kv = await new Kvm(client.js).open(Buckets.coordinatorLeases);
    const held = new Set<number>();
    for (let k = 0; k < o.partitions; k++) {
      const e = await kv.get(`p${o.partitions}.${k}`).catch(() => null);
      if (e?.operation === 'PUT' && e.json<{ replica: string }>().replica === replicaId)
        held.add(k);
    }
    return new Set(channels.filter((c) => held.has(partitionOf(c, o.partitions))));
  };
  let result: SoakReport = { failed: 1 };
  try {
    for (const c of coordinators) c.start();
    const guildId = snowflake();
    fake.guilds.add(guildId);
    const setupUntil = Date.now() + 120_000;
    const agents = Array.from({ length: channelCount * AGENTS_PER_CHANNEL }, (_, i) => ({
      agentId: `soak${i}-${randomUUID().slice(0, 8)}`,
      userId: snowflake(),
    }));
    const byAgent = new Map(agents.map((a) => [a.agentId, a]));
    for (const a of agents) {
      await patiently(
        'identity upsert',
        async () => {
          const r = await messaging.request(Subjects.admin.identityUpsert, {
            discordUserId: a.userId,
            agentId: a.agentId,
            agentName: a.agentId,
          });
          if (!r.ok) throw new Error(r.error.message);
        },
        setupUntil,
      );
    }
    const channels: string[] = [];
    for (let c = 0; c < channelCount; c++) {
      const members = agents.slice(c * AGENTS_PER_CHANNEL, (c + 1) * AGENTS_PER_CHANNEL);
      const channelId = await patiently(
        'create-chat-channel',
        async () => {
          const r = await messaging.request<{ channelId: string }>(
            subject.tool('create-chat-channel'),
            {
              callerAgentId: members[0].agentId,
              guildId,
              name: `soak-${c}`,
              participants: members.slice(1).map((m) => m.userId),
            },
            10_000,
          );
          if (!r.ok) throw new Error(r.error.message);
          return r.data.channelId;
        },
        setupUntil,
      );
      channels.push(channelId);
      ledger.watch(channelId, Date.now());
    }

    const pg = knex({ client: 'pg', connection: db.url, pool: { min: 0, max: 1 } });
    cleanups.push(() => pg.destroy());
    const meter = new CostMeter({
      nc: client.nc,
      jsm: client.jsm,
      pids: () => new Map(coordinators.map((c) => [c.replicaId, c.pid])),
      natsPid: nats?.pid,
      natsMonitor: nats ? `http://127.0.0.1:${nats.monitorPort}` : undefined,
      pgTransactions: async () => {
        const r: { rows: { n: string }[] } = await pg.raw(
          'select xact_commit + xact_rollback as n from pg_stat_database where datname = ?',
          [db.name],
        );
        return Number(r.rows[0]?.n ?? 0);
      },
      partitions: o.partitions,
      holders: async () => {
        const out = new Map<number, string>();
        if (o.partitions === 0) return out;
        const kv = await new Kvm(client.js).open(Buckets.coordinatorLeases);
        for (let k = 0; k < o.partitions; k++) {
          const e = await kv.get(`p${o.partitions}.${k}`).catch(() => null);
          if (e?.operation === 'PUT') out.set(k, e.json<{ replica: string }>().replica);
        }
        return out;
      },
    });

    // Every grant as any core-NATS subscriber sees it.
    const grants = client.nc.subscribe(Subjects.turn.grantedAll, {
      callback: (_e, m) => {
        const g = m.json<Envelope<TurnGranted>>().data;
        ledger.granted(g.channelId, g.turnId, Date.now());
        meter.granted(g.channelId);
      },
    });
    cleanups.push(async () => grants.unsubscribe());

    // The agents: check the turn, answer in "Discord", complete with the grant's turn id.
    let replies = 0;
    const act = async (g: GrantedEvent) => {
      const agent = byAgent.get(g.agentId);
      if (!agent) return;
      const until = Date.now() + 20_000;
      const check = await patiently(
        'check-turn',
        () => relay.checkTurn({ guildId: g.guildId, channelId: g.channelId, agentId: g.agentId }),
        until,
      ).catch(() => null);
      if (!check) return;
      if (!check.allowed) {
        ledger.refused(g.channelId, g.turnId);
        return;
      }
      await sleep(Math.random() * 50);
      const text = `Reply ${++replies} from ${agent.agentId}: ${randomUUID()}`;
      // Retried like the requests: a NATS restart must not make the scripted agent give up.
      const post = () =>
        patiently('post', () => fake.post(g.guildId, g.channelId, agent.userId, text, true), until);
      if (g.cycle % 2 === 0) await post();
      ledger.completing(g.channelId, g.turnId);
      await patiently(
        'turn-complete',
        () =>
          relay.completeTurn({
            guildId: g.guildId,
            channelId: g.channelId,
            agentId: g.agentId,
            runId: randomUUID(),
            text,
            turnId: g.turnId,
          }),
        until,
      ).catch(() => undefined);
      if (g.cycle % 2 === 1) await post();
    };
    const durable = `soak-agents-${randomUUID().slice(0, 8)}`;
    const sub = await relay.onGranted({
      durable,
      handler: (g) => {
        void act(g).catch((e) => log(`agent failed: ${(e as Error).message}`));
      },
    });
    cleanups.push(async () => {
      await sub.stop();
      await relay.deleteDurable(durable);
    });

    // People: each channel hears from a human every few seconds (waking it when dormant).
    // They go round the channels in turn: picked at random, a channel created dormant could
    // wait 20-30 s for its first person and count as stuck although it only waited for one.
    const humans = (async () => {
      const human = snowflake();
      for (let i = 0; running; i++) {
        const channelId = channels[i % channels.length];
        // While NATS restarts the post fails: people just talk again later.
        await fake
          .post(guildId, channelId, human, `a person says ${randomUUID()}`, false)
          .catch(() => undefined);
        await sleep(4000 / channels.length);
      }
    })();
    cleanups.push(() => humans);
    const ticker = setInterval(() => ledger.tick(Date.now()), 1000);
    cleanups.push(async () => clearInterval(ticker));

    const what = killEveryS > 0 ? `SIGKILL every ${killEveryS} s` : 'no kills';
    log(
      `${channelCount} channels, ${o.replicas} replica(s), ${o.partitions} partition(s), ${what} for ${durationS} s`,
    );
    const turnsAtStart = ledger.turns;
    await meter.start();
    const startedAt = Date.now();
    const end = startedAt + durationS * 1000;
    let kills = 0;
    let natsRestarts = 0;
    while (Date.now() < end) {
      await sleep(Math.min(killEveryS > 0 ? killEveryS * 1000 : Infinity, end - Date.now()));
      // A timer may fire a millisecond early: a run without kills never kills.
      if (Date.now() >= end || killEveryS <= 0) break;
      const victim = coordinators[kills % coordinators.length];
      const affected = await channelsOf(victim.replicaId, channels);
      await victim.kill('SIGKILL');
      kills++;
      ledger.killed(Date.now(), affected);
      if (nats && o.natsRestartEveryKills > 0 && kills % o.natsRestartEveryKills === 0) {
        await nats.restart();
        natsRestarts++;
      }
      victim.start(o.freshIds ? `soak-r${kills % coordinators.length}-${++restarts}` : undefined);
      log(`kill ${kills} (${victim.replicaId}): ${ledger.turns} turns so far`);
    }
    const measuredS = (Date.now() - startedAt) / 1000;
    const turnsPerS = (ledger.turns - turnsAtStart) / measuredS;
    // Figures only for runs without kills: a killed replica's CPU time is lost with it.
    const cost =
      killEveryS > 0
        ? {}
        : await meter
            .stop(ledger.turns - turnsAtStart, measuredS)
            .catch((e: Error) => ({ costError: e.message }));
    // A last look with the coordinators left alone.
    await sleep(5000);
    ledger.tick(Date.now());
    running = false;
    const counts = ledger.report(Date.now());
    if (process.env.SOAK_DIAGNOSE === '1') await diagnose(messaging, ledger.slow);
    const bad =
      counts.doubleGrants + counts.repeatedGrants + counts.refusals + counts.stuckChannels;
    result = {
      channels: channelCount,
      replicas: o.replicas,
      partitions: o.partitions,
      killEveryS,
      durationS,
      kills,
      natsRestarts,
      turnsPerS: Math.round(turnsPerS * 10) / 10,
      ...counts,
      ...cost,
      firstGrantAfterKillMs: ledger.firstGrantAfterKill.join(' '),
      examples: ledger.examples.join(' | '),
      failed: bad > 0 ? 1 : 0,
    };
  } catch (e) {
    log(`soak failed: ${(e as Error).message}\n${coordinator.tail()}`);
    result = { failed: 1, error: (e as Error).message };
  } finally {
    running = false;
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    // SIGTERM when profiling: the profile is written on a clean exit.
    for (const c of coordinators) {
      await c.kill(process.env.SOAK_CPU_PROFILE ? 'SIGTERM' : 'SIGKILL');
    }
    await fake.stop().catch(() => undefined);
    await relay.close().catch(() => undefined);
    await messaging.close().catch(() => undefined);
    await db.drop().catch(() => undefined);
    await nats?.stop();
  }
  return result;
}
