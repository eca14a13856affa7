import { MikroORM } from '@mikro-orm/postgresql';
import {
  StreamSpecs,
  Subjects,
  subject,
  type Envelope,
  type TurnGranted,
} from '@dirigent/contracts';
import { Messaging, NatsClient, ensureStream } from '@dirigent/messaging';
import { migrate, ormConfig } from '@dirigent/persistence';
import { snowflake, testDatabaseUrl, testNatsUrl, uid } from '@dirigent/testing';
import { FakeIngest } from '../services/turn-coordinator/test/fake-ingest';
import { startPrivateNats } from '../libs/testing/src/private-services';

const SETUP_CONCURRENCY = 25;
const TIMEOUT_MS = 60_000;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(check: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`bench timed out waiting for ${what()}`);
    await sleep(5);
  }
}

/** Fires `fire(i)` at a fixed rate (open loop: a slow answer does not slow the schedule). */
export async function openLoop(rate: number, total: number, fire: (i: number) => Promise<void>) {
  const start = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait >= 1) await sleep(wait);
    inflight.push(fire(i));
  }
  await Promise.all(inflight);
}

/** Setup calls are retried: on a shared NATS another ingest may answer (and refuse) first. */
async function retry<T extends { ok: boolean }>(call: () => Promise<T>, attempts = 5): Promise<T> {
  let last = await call();
  for (let i = 1; i < attempts && !last.ok; i++) last = await call();
  return last;
}

async function inParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

export interface Running {
  stop(): Promise<void>;
  /** CPU time the server's process has used so far, ms (undefined: it is this process). */
  cpuMs(): number | undefined;
}

/**
 * What the coordinator suites measure against: NATS (a nats-server of its own unless
 * NATS_URL names one), Postgres migrated, a fake ingest, the coordinator `start`ed, and
 * `channels` two-agent chat channels, each woken by a person so that its first agent holds
 * the turn. `current` follows every grant.
 */
export interface CoordinatorWorld {
  natsUrl: string;
  client: NatsClient;
  nats: Messaging;
  fake: FakeIngest;
  orm: MikroORM;
  coordinator: Running;
  guildId: string;
  agents: { agentId: string; userId: string }[];
  channels: string[];
  current: Map<string, { agentId: string; at: bigint }>;
  grantWaiters: Map<string, (agentId: string) => void>;
  stop(): Promise<void>;
}

export async function startCoordinatorWorld(
  channelCount: number,
  start: (env: Record<string, string>) => Promise<Running>,
): Promise<CoordinatorWorld> {
  // A nats-server of its own unless NATS_URL names one: the machine's server keeps what
  // earlier runs left, e.g. thousands of pending coordinator timers that every coordinator on
  // it watches, scans on each change and fires (docs/performance.md).
  const ownNats = process.env.NATS_URL ? undefined : await startPrivateNats();
  const natsUrl = process.env.NATS_URL ?? ownNats?.url ?? testNatsUrl();
  const databaseUrl = process.env.DATABASE_URL ?? testDatabaseUrl();
  await migrate(databaseUrl);
  const client = await NatsClient.connect({ url: natsUrl, name: 'bench-turn-coordinator' });
  const quiet = () => undefined;
  const nats = new Messaging(client, 'bench', { info: quiet, warn: quiet, error: quiet });
  // A private nats-server starts empty: the fake ingest's command durable needs its stream.
  for (const spec of Object.values(StreamSpecs)) await ensureStream(client.jsm, spec);
  const fake = new FakeIngest(nats, snowflake());
  await fake.start();
  const orm = await MikroORM.init(ormConfig(databaseUrl));
  const coordinator = await start({
    NATS_URL: natsUrl,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    DIRIGENT_MODERATOR_USER_ID: fake.moderatorId,
  });
  const current = new Map<string, { agentId: string; at: bigint }>();
  const grantWaiters = new Map<string, (agentId: string) => void>();
  const grants = client.nc.subscribe(Subjects.turn.grantedAll, {
    callback: (_err, msg) => {
      const g = msg.json<Envelope<TurnGranted>>().data;
      current.set(g.channelId, { agentId: g.agentId, at: process.hrtime.bigint() });
      grantWaiters.get(g.channelId)?.(g.agentId);
    },
  });
  const stop = async () => {
    grants.unsubscribe();
    await coordinator.stop();
    await orm.close(true);
    await fake.stop();
    await nats.close();
    await client.close();
    await ownNats?.stop();
  };
  try {
    const guildId = snowflake();
    fake.guilds.add(guildId);
    const human = snowflake();
    const agents = [0, 1].map((i) => ({
      agentId: uid(`bench${i}`).replace(/[^A-Za-z0-9_-]/g, '_'),
      userId: snowflake(),
    }));
    for (const a of agents) {
      const r = await nats.request(Subjects.admin.identityUpsert, {
        discordUserId: a.userId,
        agentId: a.agentId,
      });
      if (!r.ok) throw new Error(`identity upsert: ${r.error.message}`);
    }
    const channels: string[] = [];
    await inParallel(
      Array.from({ length: channelCount }, (_, i) => i),
      SETUP_CONCURRENCY,
      async (i) => {
        const r = await retry(() =>
          nats.request<{ channelId: string }>(
            subject.tool('create-chat-channel'),
            {
              callerAgentId: agents[0].agentId,
              guildId,
              name: `bench-${i}`,
              participants: [agents[1].userId],
            },
            10_000,
          ),
        );
        if (!r.ok) throw new Error(`create-chat-channel: ${r.error.message}`);
        channels.push(r.data.channelId);
        await fake.post(guildId, r.data.channelId, human, 'hello', false);
      },
    );
    try {
      await until(
        () => channels.every((c) => current.has(c)),
        () =>
          `every channel to be woken (${channels.filter((c) => current.has(c)).length} of ${channelCount})`,
      );
    } catch (e) {
      const stuck = channels.find((c) => !current.has(c));
      const view = stuck
        ? await nats.request(Subjects.admin.channelGet, { channelId: stuck })
        : null;
      throw new Error(`${(e as Error).message}; e.g. ${stuck}: ${JSON.stringify(view)}`);
    }
    return {
      natsUrl,
      client,
      nats,
      fake,
      orm,
      coordinator,
      guildId,
      agents,
      channels,
      current,
      grantWaiters,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
