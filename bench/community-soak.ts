/**
 * The community soak (part of `npm run bench`, or alone: `npm run bench -- community-soak`):
 * the five services with five built-in agents (Dit, Ada, Basil, Clio and the orchestrator
 * Molt) and three scripted people in ten channels of the local Discord, on the offline
 * model, until the channels hold `COMMUNITY_SOAK_MESSAGES` (10,000) messages, while the
 * router (a child process) is SIGKILLed every `COMMUNITY_SOAK_KILL_EVERY_S` (60) seconds
 * and restarted at once. Reports the share of explicit mentions answered, the longest run
 * of bot messages without a human one, dead letters, the router's decision latency without
 * a model call, memory's and the router's consumer lag, and follow-ups lost or doubled.
 *
 *   COMMUNITY_SOAK_MESSAGES=1500 COMMUNITY_SOAK_KILL_EVERY_S=30 npm run bench -- community-soak
 *   (also COMMUNITY_SOAK_HUMAN_INTERVAL_MS, 400: the pause between two people's messages;
 *   COMMUNITY_SOAK_MAX_MINUTES, 90: a bound on the run; COMMUNITY_SOAK_DRAIN_S, 300: how long
 *   to wait after the grace for every due follow-up to settle)
 */
import { Durables, Streams, Subjects, type Envelope } from '@dirigent/contracts';
import type { FakeMessage } from '@dirigent/discord-fake';
import type { JetStreamManager } from '@nats-io/jetstream';
import { NatsClient } from '@dirigent/messaging';
import { seededRandom } from '@dirigent/router-domain';
import knex from 'knex';
import { CommunityLedger } from './community-ledger';
import { AGENTS, startCommunityWorld } from './community-world';
import { sleep, soakLog } from './soak-processes';
import type { BenchResult } from './stats';

const CHANNELS = 10;
/** After the people stop: time for the last answers and follow-ups, without kills. */
const GRACE_MS = 45_000;

/**
 * After the grace: waits (up to `boundMs`) for every follow-up due by `dueBy` to settle, then
 * prints what the router's table says of any still unsettled: lost, or only late.
 */
async function drainFollowups(
  ledger: CommunityLedger,
  databaseUrl: string,
  dueBy: number,
  boundMs: number,
) {
  const started = Date.now();
  while (ledger.unsettled(dueBy).length && Date.now() - started < boundMs) await sleep(2000);
  const open = ledger.unsettled(dueBy);
  soakLog(
    `follow-ups drained in ${Math.round((Date.now() - started) / 1000)} s; ${open.length} due and not settled`,
  );
  if (!open.length) return;
  const db = knex({ client: 'pg', connection: databaseUrl });
  try {
    const rows = await db('self_followup_schedules')
      .whereIn('followup_id', open.slice(0, 50))
      .select('followup_id', 'status', 'reason', 'due_at', 'created_at');
    for (const r of rows) soakLog(`unsettled follow-up: ${JSON.stringify(r)}`);
  } finally {
    await db.destroy();
  }
}

function env(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number ≥ ${min}`);
  return n;
}

const TOPICS = ['pizza', 'the release', 'rust', 'the hike', 'board games', 'coffee', 'jazz'];
const TEMPLATES: ((t: string) => string)[] = [
  (t) => `what do you all think about ${t}?`,
  (t) => `remember when we argued about ${t} last time?`,
  (t) => `honestly ${t} is overrated, fight me`,
  (t) => `lol ${t} again`,
  (t) => `I was reading about ${t} this morning, it was better than I expected`,
  (t) => `no way, ${t} is better than that`,
  (t) => `ok ${t}`,
];

/** A person's next message: a mention of an agent by name every fourth message. */
function line(i: number): { text: string; mentions: string[] } {
  const r = seededRandom(`community-${i}`);
  const topic = TOPICS[Math.floor(r() * TOPICS.length)];
  const text = TEMPLATES[Math.floor(r() * TEMPLATES.length)](topic);
  if (i % 4 !== 0) return { text, mentions: [] };
  const agent = AGENTS[(i / 4) % AGENTS.length];
  return { text: `${agent.name}, ${text}`, mentions: [agent.id] };
}

/** Pending (not yet acknowledged) messages of a durable consumer. */
async function lagOf(jsm: JetStreamManager, durable: string) {
  const info = await jsm.consumers.info(Streams.discordEvents, durable).catch(() => null);
  return info ? info.num_pending + info.num_ack_pending : 0;
}

export async function benchCommunitySoak(): Promise<BenchResult> {
  const target = env('COMMUNITY_SOAK_MESSAGES', 10_000, 10);
  const killEveryS = env('COMMUNITY_SOAK_KILL_EVERY_S', 60, 0);
  const intervalMs = env('COMMUNITY_SOAK_HUMAN_INTERVAL_MS', 400, 0);
  const maxMs = env('COMMUNITY_SOAK_MAX_MINUTES', 90, 1) * 60_000;
  const drainMs = env('COMMUNITY_SOAK_DRAIN_S', 300, 0) * 1000;
  const world = await startCommunityWorld(CHANNELS);
  const { discord, router } = world;
  const ledger = new CommunityLedger();
  const channels = new Set(world.channelIds);
  const agentByName = new Map<string, string>(
    AGENTS.flatMap((a) => [
      [a.name.toLowerCase(), a.id],
      [a.id, a.id],
    ]),
  );
  const client = await NatsClient.connect({ url: world.nats.url, name: 'community-soak' });
  const { nc, jsm } = client;
  const lag = { memoryMax: 0, routerMax: 0, memoryEnd: 0, routerEnd: 0 };
  let running = true;
  try {
    discord.on('messageCreated', (m: FakeMessage) => {
      if (!channels.has(m.channelId) || !m.webhookId) return;
      const name = (
        m.webhookUsername ??
        discord.webhooks.get(m.webhookId)?.name ??
        ''
      ).toLowerCase();
      ledger.bot(m.channelId, agentByName.get(name) ?? name, Date.now(), {
        messageId: m.id,
        text: m.content,
        replyTo: m.replyToMessageId,
      });
    });
    nc.subscribe(Subjects.router.evtAll, {
      callback: (_e, msg) => {
        const env = msg.json<Envelope<any>>();
        if (msg.subject.endsWith('.decision')) ledger.decision(env.data);
        else if (msg.subject.endsWith('.followup'))
          // `dirigent.router.evt.<guild>.<channel>.followup`
          ledger.followupEvent(env.data, env.id, msg.subject.split('.').at(-2));
        else if (msg.subject.endsWith('.burst-stopped')) ledger.burstsStopped++;
        else if (msg.subject.endsWith('.held-back')) {
          ledger.heldBack++;
          if (env.data.reaction && env.data.inboundMessageId)
            ledger.reacted(env.data.inboundMessageId, env.data.agentId);
        }
      },
    });
    const sampler = (async () => {
      while (running) {
        const [memory, routerLag] = await Promise.all([
          lagOf(jsm, Durables.memoryDiscordEvents),
          lagOf(jsm, Durables.routerDiscordEvents),
        ]);
        lag.memoryMax = Math.max(lag.memoryMax, memory);
        lag.routerMax = Math.max(lag.routerMax, routerLag);
        lag.memoryEnd = memory;
        lag.routerEnd = routerLag;
        await sleep(2000);
      }
    })();
    soakLog(
      `community soak: ${CHANNELS} channels, ${AGENTS.length} agents, target ${target} messages, SIGKILL every ${killEveryS} s`,
    );
    const started = Date.now();
    let nextKill = killEveryS > 0 ? started + killEveryS * 1000 : Infinity;
    let restarts = 0;
    // People keep talking while the router is down: what they said is redelivered to it.
    let restarting: Promise<void> = Promise.resolve();
    for (let i = 0; ledger.messages < target && Date.now() - started < maxMs; i++) {
      const channelId = world.channelIds[i % CHANNELS];
      const { text, mentions } = line(i);
      const at = Date.now();
      const m = discord.postMessage({ channelId, authorId: world.humanIds[i % 3], content: text });
      ledger.human(channelId, m.id, mentions, at, { who: 'human', text });
      await sleep(intervalMs);
      if (Date.now() >= nextKill) {
        nextKill = Infinity;
        restarting = (async () => {
          ledger.kill(Date.now());
          await router.kill('SIGKILL');
          await router.start();
          restarts++;
          nextKill = Date.now() + killEveryS * 1000;
          soakLog(`kill ${restarts}: ${ledger.messages} messages, ${ledger.decisions} decisions`);
        })();
      }
    }
    await restarting;
    const stoppedAt = Date.now();
    soakLog(`people stopped at ${ledger.messages} messages; ${GRACE_MS / 1000} s of grace`);
    await sleep(GRACE_MS);
    const settledBy = stoppedAt + GRACE_MS - 15_000;
    await drainFollowups(ledger, world.databaseUrl, settledBy, drainMs);
    running = false;
    await sampler;
    for (const chain of ledger.longChains) soakLog(`bot chain over 3:\n${chain}`);
    const dead = await jsm.streams.info(Streams.deadLetter).catch(() => null);
    const minutes = (stoppedAt - started) / 60_000;
    return {
      ...ledger.report(stoppedAt, settledBy),
      minutes: Math.round(minutes * 10) / 10,
      messagesPerMinute: Math.round(ledger.messages / minutes),
      routerKills: router.kills,
      deadLetters: dead?.state.messages ?? 0,
      memoryLagMax: lag.memoryMax,
      memoryLagEnd: lag.memoryEnd,
      routerLagMax: lag.routerMax,
      routerLagEnd: lag.routerEnd,
    };
  } catch (e) {
    soakLog(`community soak failed: ${(e as Error).message}\n${router.tail()}`);
    throw e;
  } finally {
    running = false;
    await client.close().catch(() => undefined);
    await world.stop();
  }
}
