/**
 * `npm run soak`: the harsh fault soak (not part of `npm test`). N channels of scripted
 * relay-client agents talk through the built coordinator (a child process) while it is
 * SIGKILLed every K seconds and restarted at once, for D seconds, on a nats-server and a
 * scratch database of its own. Reports turns, double grants (a second grant while one is
 * open), repeated grants, check-turn refusals of the granted speaker, stuck channels (no
 * grant for more than 30 s) and the takeover time after a kill (kill → the next grant of a
 * channel that was waiting for one).
 *
 *   npm run soak -- --channels 20 --kill-every 7 --duration 60
 *   (or SOAK_CHANNELS, SOAK_KILL_EVERY_S, SOAK_DURATION_S; SOAK_KEEP_NATS_URL=1 uses NATS_URL)
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Subjects, subject, type Envelope, type TurnGranted } from '@dirigent/contracts';
import { Messaging, NatsClient } from '@dirigent/messaging';
import { migrate } from '@dirigent/persistence';
import { RelayClient, type GrantedEvent } from '@dirigent/relay-client';
import { snowflake, testDatabaseUrl } from '@dirigent/testing';
import { createScratchDatabase, startPrivateNats } from '../libs/testing/src/private-services';
import { FakeIngest } from '../services/turn-coordinator/test/fake-ingest';
import { SoakLedger } from './soak-ledger';

const MAIN = resolve(__dirname, '../services/turn-coordinator/main.js');
const STUCK_AFTER_MS = 30_000;
const AGENTS_PER_CHANNEL = 3;

function option(flag: string, env: string, fallback: number): number {
  const i = process.argv.indexOf(flag);
  const raw = i >= 0 ? process.argv[i + 1] : process.env[env];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} / ${env} must be a positive number`);
  return n;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stderr.write(`[soak ${new Date().toISOString()}] ${msg}\n`);

/** Retries a request while the coordinator is down (it answers UNAVAILABLE or TIMEOUT). */
async function patiently<T>(what: string, call: () => Promise<T>, untilMs: number): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (e) {
      if (Date.now() > untilMs) throw new Error(`${what}: ${(e as Error).message}`);
      await sleep(200);
    }
  }
}

class Coordinator {
  private child?: ChildProcess;
  kills = 0;
  private output = '';

  constructor(
    private readonly env: Record<string, string>,
    private readonly logFile?: string,
  ) {}

  start(): void {
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-20_000);
      if (this.logFile) appendFileSync(this.logFile, d);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.child = child;
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((res) => {
      child.once('exit', () => res());
      child.kill(signal);
    });
    if (signal === 'SIGKILL') this.kills++;
  }

  tail(): string {
    return this.output.split('\n').slice(-15).join('\n');
  }
}

async function main() {
  const channelCount = option('--channels', 'SOAK_CHANNELS', 40);
  const killEveryS = option('--kill-every', 'SOAK_KILL_EVERY_S', 7);
  const durationS = option('--duration', 'SOAK_DURATION_S', 180);
  const ownNats = process.env.SOAK_KEEP_NATS_URL !== '1';
  const nats = ownNats ? await startPrivateNats() : null;
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
  const coordinator = new Coordinator(
    {
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
    },
    process.env.SOAK_LOG_FILE,
  );
  const ledger = new SoakLedger(STUCK_AFTER_MS);
  let running = true;
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    coordinator.start();
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

    // Every grant as any core-NATS subscriber sees it.
    const grants = client.nc.subscribe(Subjects.turn.grantedAll, {
      callback: (_e, m) => {
        const g = m.json<Envelope<TurnGranted>>().data;
        ledger.granted(g.channelId, g.turnId, Date.now());
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
      const post = () => fake.post(g.guildId, g.channelId, agent.userId, text, true);
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
    const humans = (async () => {
      const human = snowflake();
      while (running) {
        const channelId = channels[Math.floor(Math.random() * channels.length)];
        await fake.post(guildId, channelId, human, `a person says ${randomUUID()}`, false);
        await sleep(4000 / channels.length);
      }
    })();
    cleanups.push(() => humans);
    const ticker = setInterval(() => ledger.tick(Date.now()), 1000);
    cleanups.push(async () => clearInterval(ticker));

    log(`${channelCount} channels, SIGKILL every ${killEveryS} s for ${durationS} s`);
    const end = Date.now() + durationS * 1000;
    while (Date.now() < end) {
      await sleep(Math.min(killEveryS * 1000, end - Date.now()));
      if (Date.now() >= end) break;
      await coordinator.kill('SIGKILL');
      ledger.killed(Date.now());
      coordinator.start();
      log(`kill ${coordinator.kills}: ${ledger.turns} turns so far`);
    }
    // A last look with the coordinator left alone.
    await sleep(5000);
    ledger.tick(Date.now());
    running = false;
    const report = { channels: channelCount, killEveryS, durationS, kills: coordinator.kills };
    console.log(JSON.stringify({ ...report, ...ledger.report(Date.now()) }, null, 2));
    if (ledger.examples.length) console.log(ledger.examples.join('\n'));
    console.log(`first grant after each kill (ms): ${ledger.firstGrantAfterKill.join(', ')}`);
    const bad = ledger.report(Date.now());
    if (bad.doubleGrants || bad.repeatedGrants || bad.refusals || bad.stuckChannels) {
      process.exitCode = 1;
    }
  } catch (e) {
    log(`soak failed: ${(e as Error).message}\n${coordinator.tail()}`);
    process.exitCode = 1;
  } finally {
    running = false;
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    await coordinator.kill('SIGKILL');
    await fake.stop().catch(() => undefined);
    await relay.close().catch(() => undefined);
    await messaging.close().catch(() => undefined);
    await db.drop().catch(() => undefined);
    await nats?.stop();
  }
}

void main().finally(() => process.exit());
