import type { INestApplication } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { knex } from 'knex';
import {
  Durables,
  Streams,
  subject,
  Subjects,
  type MemoryContextResult,
  type MemorySearchResult,
  type MessageCreated,
} from '@dirigent/contracts';
import { contentWords, epochTimerKey } from '@dirigent/memory-domain';
import { migrate } from '@dirigent/persistence';
import { DurableTimers } from '@dirigent/timers';
import {
  closeMessaging,
  snowflake,
  testDatabaseUrl,
  testMessaging,
  waitFor,
} from '@dirigent/testing';
import { ArchiveIndex } from '../services/memory/adapters/archive-index';
import { FACTS, filler, MOVES, NAMES, prng } from './memory/corpus';
import { ownStores } from './own-stores';
import { benchRecall } from './memory/recall.bench';
import { liveRow, startMemoryApp } from './memory-live.bench';
import { profilePhase } from './profile';
import { msSince, percentile, round, type BenchResult } from './stats';

const CHANNELS = 50;
const QUERIES = 200;
const DAY = 86_400_000;

interface Planned {
  data: MessageCreated;
  fact?: number;
}

/**
 * The guild's messages (10,000 by default) over 30 days, planted facts and moves among
 * them at the same relative places whatever the size.
 */
function corpus(guildId: string, total: number): { messages: Planned[]; movers: string[] } {
  const at = (n: number) => Math.round((n * total) / 10_000);
  const rand = prng(42);
  // Distinct by construction (random snowflakes made within one millisecond can collide).
  const base = BigInt(Date.now()) * 100_000n;
  const id = (n: number) => String(base + BigInt(n));
  const channels = Array.from({ length: CHANNELS }, (_, i) => id(total + i));
  const authors = NAMES.map((name, i) => ({ id: id(total + CHANNELS + i), name }));
  const start = Date.now() - 30 * DAY;
  const step = (30 * DAY) / total;
  const specials = new Map<number, { text: string; author: number; fact?: number }>();
  FACTS.forEach((f, i) => specials.set(at(97 + i * 193), { text: f.text, author: i, fact: i }));
  MOVES.forEach((m, i) => {
    specials.set(at(151 + i * 37), { text: `I live in ${m.old} these days`, author: 100 + i });
    specials.set(at(8_501 + i * 53), { text: `I just moved to ${m.current}!`, author: 100 + i });
  });
  const messages: Planned[] = [];
  for (let n = 0; n < total; n++) {
    const s = specials.get(n);
    const author = authors[s?.author ?? Math.floor(rand() * authors.length)];
    messages.push({
      fact: s?.fact,
      data: {
        guildId,
        channelId: channels[Math.floor(rand() * CHANNELS)],
        messageId: id(n),
        authorId: author.id,
        authorName: author.name,
        authorIsBot: false,
        content: s?.text ?? filler(rand),
        createdAt: new Date(start + n * step).toISOString(),
      },
    });
  }
  return { messages, movers: MOVES.map((_, i) => authors[100 + i].name) };
}

/**
 * Recall on the generated conversations (`memory/recall.bench.ts`: Dirigent and plain
 * BM25 side by side).
 */
export function benchMemory(): Promise<BenchResult> {
  return withOwnStores(async () => {
    const messaging = await testMessaging('memory-bench-recall');
    try {
      return await benchRecall(messaging);
    } finally {
      await closeMessaging(messaging);
    }
  });
}

/**
 * Runs a memory suite against a nats-server and a database of its own unless NATS_URL /
 * DATABASE_URL name them (`own-stores.ts`): its timers on the machine's NATS would be fired
 * by the next `npm start` (thousands of epoch closes and moment batches of guilds it never
 * saw). The service and the test helpers read the two variables, set while it runs.
 */
async function withOwnStores<T>(run: () => Promise<T>): Promise<T> {
  const named = { NATS_URL: process.env.NATS_URL, DATABASE_URL: process.env.DATABASE_URL };
  const stores = await ownStores();
  process.env.NATS_URL = stores.natsUrl;
  process.env.DATABASE_URL = stores.databaseUrl;
  try {
    return await run();
  } finally {
    for (const [k, v] of Object.entries(named)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await stores.release();
  }
}

/**
 * `npm run bench -- memory-scale [--quick] [--messages=N] [--big=N] [--quiet=N]
 * [--layout=split|one|both]`: memory at a live community's pace (`memory-live.bench.ts`): a
 * row of 100,000 messages and one of 1,000,000, each measured while 200 messages a second
 * arrive and moment batches and epoch closes run, on a `queries` replica beside a `jobs`
 * replica (`split`, as deployed; `one`: one process in the `all` role; `both`: each); then
 * the quiet row, the former figure (search once the load's moment batches are done).
 * `--quick`: 20,000 / 100,000 / none. `--big=0` or `--quiet=0` leaves a row out.
 */
export async function benchMemoryScale(): Promise<BenchResult> {
  const quick = process.argv.includes('--quick');
  const flag = (name: string, fallback: number) => {
    const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
    const n = arg ? Number(arg.slice(name.length + 3)) : fallback;
    if (!Number.isInteger(n) || (n !== 0 && n < 1_000)) {
      throw new Error(`--${name} must be 0 or an integer of at least 1000`);
    }
    return n;
  };
  const env = Number(process.env.DIRIGENT_BENCH_MEMORY_MESSAGES || 0);
  const live = flag('messages', env || (quick ? 20_000 : 100_000));
  const big = flag('big', quick ? 100_000 : 1_000_000);
  const quiet = flag('quiet', quick ? 0 : env || 100_000);
  // The deployed layout (a queries and a jobs replica); `--layout=both` adds one process.
  const layoutArg = process.argv.find((a) => a.startsWith('--layout='))?.slice(9) ?? 'split';
  if (!['split', 'one', 'both'].includes(layoutArg)) {
    throw new Error('--layout must be split, one or both');
  }
  const layouts = (layoutArg === 'both' ? ['split', 'one'] : [layoutArg]) as ('split' | 'one')[];
  const out: BenchResult = {};
  // Each row also goes to stderr as it is done: the table waits for the last row.
  const put = (row: string, r: BenchResult) => {
    for (const [k, v] of Object.entries(r)) out[`${row}: ${k}`] = v;
    process.stderr.write(`memory-scale ${row}: ${JSON.stringify(r)}\n`);
  };
  for (const [total, burst] of [
    [live, quick ? 5_000 : 20_000],
    [big, quick ? 5_000 : 20_000],
  ] as const) {
    for (const layout of total ? layouts : []) {
      const r = await withOwnStores(() =>
        liveRow(testDatabaseUrl(), { total, burst, anchor: total <= 100_000, layout }),
      );
      put(`live ${total / 1000}k${layout === 'one' ? ' (one process)' : ''}`, r);
    }
  }
  if (quiet)
    put(`quiet ${quiet / 1000}k (batches done)`, await withOwnStores(() => benchMemoryAt(quiet)));
  return out;
}

/**
 * The quiet row: `total` messages in 50 channels by 200 authors ingested through JetStream
 * into Postgres (msg/s, and the CPU this process spent per 1,000 messages), the time the
 * moment batches armed during the load take after it, `memory.search` once they are done
 * (p50/p95 over 200 queries for a public channel while a tenth of the channels are
 * private), keyword and paraphrase recall@5, current over superseded facts,
 * `memory.context` p95, RSS, and the first search of a restarted service. With
 * BENCH_CPU_PROFILE=<dir>, each phase's CPU profile.
 */
async function benchMemoryAt(total: number): Promise<BenchResult> {
  const databaseUrl = testDatabaseUrl();
  await migrate(databaseUrl);
  const embedder = process.env.DIRIGENT_MEMORY_EMBEDDER ?? 'local';
  let app: INestApplication | undefined;
  const messaging = await testMessaging('memory-bench');
  const guildId = snowflake();
  const channelIds = new Set<string>();
  const start = () =>
    startMemoryApp(databaseUrl, {
      DIRIGENT_MEMORY_EMBEDDER: embedder,
      // No epoch closes during the measurement.
      DIRIGENT_EPOCH_GAP_MS: String(365 * DAY),
    });
  try {
    app = await start();
    const { messages, movers } = corpus(guildId, total);
    for (const m of messages) channelIds.add(m.data.channelId);
    // A tenth of the channels are private: searches made for a public channel (as agents
    // make them) leave their messages out.
    const ordered = [...channelIds].sort();
    const privateChannels = new Set(ordered.filter((_, i) => i % 10 === 9));
    const answerIn = ordered[0];

    // A publish whose ack is late (a busy shared NATS server) is sent again: the envelope id
    // is the JetStream message id, so the server drops the copy.
    const publish = async (data: MessageCreated, attempt = 1): Promise<unknown> =>
      messaging
        .publishEvent(
          subject.discordEvent(guildId, data.channelId, 'message.created'),
          'message.created',
          { ...data, audience: privateChannels.has(data.channelId) ? 'private' : 'public' },
          { id: `discord:${data.messageId}` },
        )
        .catch((e: Error) => {
          if (attempt >= 5 || !/timeout/i.test(e.message)) throw e;
          return publish(data, attempt + 1);
        });
    const progress = (what: string) => process.stderr.write(`memory ${total}: ${what}\n`);
    progress('ingesting');
    const connection = app.get(MikroORM).em.getConnection();
    const stored = async () => {
      const [row] = await connection.execute<{ count: string }[]>(
        'select count(*) from memory_message where guild_id = ?',
        [guildId],
      );
      return Number(row.count);
    };
    const t0 = process.hrtime.bigint();
    const cpu0 = process.cpuUsage();
    await profilePhase('memory-ingest', async () => {
      for (let i = 0; i < messages.length; i += 500) {
        await Promise.all(messages.slice(i, i + 500).map(({ data }) => publish(data)));
      }
      await waitFor(async () => (await stored()) >= total, 1_200_000, 250, 'ingest');
    });
    const ingestSeconds = msSince(t0) / 1000;
    const ingestCpu = process.cpuUsage(cpu0);
    // The moment batches armed during the load (one per 50 messages of a channel) run
    // after it in the background; search is measured once they are done, and the time they
    // took is a figure of its own.
    progress(`stored in ${Math.round(ingestSeconds)} s; moment batches`);
    const tMoments = process.hrtime.bigint();
    await waitFor(
      async () => (await backlog(messaging, Streams.timerFired, Durables.memoryMoments)) === 0,
      1_200_000,
      1_000,
      'moment batches',
    );
    const momentsSeconds = msSince(tMoments) / 1000;
    progress(`moment batches done in ${Math.round(momentsSeconds)} s; vacuum analyze`);
    // What autovacuum does within a minute of a bulk load: the planner's statistics (row
    // counts, common lexemes), without which it ignores the GIN indexes, and the GIN
    // pending lists merged (each search would scan them otherwise).
    // (The layer tables a search reads too: phrase lore is rewritten with each batch of uses.)
    for (const table of [
      'memory_message',
      'memory_dossier',
      'memory_fact',
      'memory_embedding',
      'memory_lore',
      'memory_highlight',
      'memory_epoch',
    ]) {
      await connection.execute(`vacuum analyze ${table}`);
    }

    /** The admin view (recall is measured over every channel), or for a public channel. */
    const search = async (query: string, k = 8, forChannelId?: string) => {
      const r = await messaging.request<MemorySearchResult>(
        Subjects.memory.search,
        { guildId, query, k, ...(forChannelId ? { forChannelId } : {}) },
        10_000,
      );
      if (!r.ok) throw new Error(`search failed: ${r.error.message}`);
      return r.data.hits;
    };
    progress('searching');
    // The first search of a guild loads its vectors into this process (once per replica).
    const tLoad = process.hrtime.bigint();
    const warm = await messaging.request<MemorySearchResult>(
      Subjects.memory.search,
      { guildId, query: 'warm up', k: 1 },
      600_000,
    );
    if (!warm.ok) throw new Error(`search failed: ${warm.error.message}`);
    const firstSearchMs = msSince(tLoad);
    const factIds = new Map<number, string>();
    for (const m of messages) if (m.fact !== undefined) factIds.set(m.fact, m.data.messageId);
    const recall = async (pick: (f: (typeof FACTS)[number]) => string) => {
      let found = 0;
      for (let i = 0; i < FACTS.length; i++) {
        const hits = await search(pick(FACTS[i]), 5);
        if (hits.some((h) => h.messageId === factIds.get(i))) found++;
      }
      return found / FACTS.length;
    };
    const keywordRecall = await recall((f) => f.keyword);
    const paraphraseRecall = await recall((f) => f.paraphrase);
    const overlapping = FACTS.filter((f) => {
      const words = new Set(contentWords(f.text));
      return contentWords(f.paraphrase).some((w) => words.has(w));
    }).length;

    let currentFirst = 0;
    for (let i = 0; i < MOVES.length; i++) {
      const hits = await search(`where does ${movers[i]} live`, 10);
      const first = hits.find(
        (h) => h.text.includes(MOVES[i].old) || h.text.includes(MOVES[i].current),
      );
      if (first?.text.includes(MOVES[i].current)) currentFirst++;
    }

    const rand = prng(7);
    const queries = Array.from({ length: QUERIES }, (_, i) =>
      i % 4 === 0
        ? FACTS[i % FACTS.length].keyword
        : i % 4 === 1
          ? FACTS[i % FACTS.length].paraphrase
          : filler(rand),
    );
    const latencies: number[] = [];
    const searchCpu0 = process.cpuUsage();
    await profilePhase('memory-search', async () => {
      for (const q of queries) {
        const t = process.hrtime.bigint();
        await search(q, 8, answerIn);
        latencies.push(msSince(t));
      }
    });
    const searchCpu = process.cpuUsage(searchCpu0);
    let contextMs: number[] = [];
    await profilePhase('memory-context', async () => {
      contextMs = await assembleContexts(messaging, guildId, messages);
    });
    const rssMb = Math.round(process.memoryUsage().rss / 1_048_576);

    // A restart: the first search must not wait for the process to load the guild.
    progress('restarting');
    await app.close();
    let afterRestartMs = 0;
    let indexReadyMs = 0;
    await profilePhase('memory-restart', async () => {
      const tStart = process.hrtime.bigint();
      app = await start();
      const tFirst = process.hrtime.bigint();
      await search(FACTS[0].keyword, 8);
      afterRestartMs = msSince(tFirst);
      await app.get(ArchiveIndex).get(guildId, 600_000);
      indexReadyMs = msSince(tStart);
    });

    return {
      embedder: embedder === 'local' ? 'offline hashed n-grams' : 'gateway (purpose embed)',
      messages: total,
      ingest_msgs_per_s: Math.round(total / ingestSeconds),
      moment_batches_after_ingest_s: Math.round(momentsSeconds),
      ingest_cpu_ms_per_1k_msgs: Math.round(
        (ingestCpu.user + ingestCpu.system) / 1000 / (total / 1000),
      ),
      first_search_ms: Math.round(firstSearchMs),
      first_search_after_start_ms: Math.round(afterRestartMs),
      search_p50_ms: round(percentile(latencies, 50), 1),
      search_p95_ms: round(percentile(latencies, 95), 1),
      search_cpu_ms_per_query: round((searchCpu.user + searchCpu.system) / 1000 / QUERIES, 1),
      keyword_recall_at_5: round(keywordRecall, 2),
      paraphrase_recall_at_5: round(paraphraseRecall, 2),
      paraphrases_sharing_a_content_word: overlapping,
      current_over_superseded_pct: Math.round((100 * currentFirst) / MOVES.length),
      context_p95_ms: round(percentile(contextMs, 95), 1),
      memory_rss_mb: rssMb,
      archive_index_ready_after_start_ms: Math.round(indexReadyMs),
    };
  } finally {
    await app?.close();
    // After the close: the service's background jobs no longer write to the guild.
    await forgetGuild(databaseUrl, guildId).catch((e: Error) =>
      process.stderr.write(`memory ${total}: the bench guild was not deleted: ${e.message}\n`),
    );
    // The bench's channels would otherwise keep their (year-long) epoch timers in the
    // machine's NATS, and every later start of memory would load them.
    if (channelIds.size) {
      const timers = await DurableTimers.open(messaging, 'memory');
      for (const c of channelIds) await timers.cancel(epochTimerKey(guildId, c));
    }
    await closeMessaging(messaging);
  }
}

/** Messages a durable consumer has not acknowledged yet. */
async function backlog(
  messaging: Awaited<ReturnType<typeof testMessaging>>,
  stream: string,
  durable: string,
): Promise<number> {
  const info = await messaging.client.jsm.consumers.info(stream, durable);
  return info.num_pending + info.num_ack_pending;
}

/**
 * The bench guild's rows out of the machine's database: the next start of memory (every
 * later run) would otherwise load its 100,000 messages and vectors too.
 */
async function forgetGuild(databaseUrl: string, guildId: string): Promise<void> {
  const db = knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  try {
    const { rows } = await db.raw<{ rows: { table_name: string }[] }>(
      `select table_name from information_schema.columns where column_name = 'guild_id'
       and table_schema = current_schema() and table_name like 'memory%'`,
    );
    for (const { table_name: table } of rows) {
      await db.raw(`delete from "${table}" where guild_id = ?`, [guildId]);
    }
  } finally {
    await db.destroy();
  }
}

/** `memory.context` latencies (ms) over the lenses that read the archive, 100 requests. */
async function assembleContexts(
  messaging: Awaited<ReturnType<typeof testMessaging>>,
  guildId: string,
  messages: Planned[],
): Promise<number[]> {
  const lenses = ['live+dossiers', 'archive-topic-deep', 'archive-person-deep', 'full-rich'];
  const out: number[] = [];
  for (let i = 0; i < 100; i++) {
    const m = messages[(i * 7919) % messages.length].data;
    const t = process.hrtime.bigint();
    const r = await messaging.request<MemoryContextResult>(
      Subjects.memory.context,
      {
        guildId,
        channelId: m.channelId,
        strategy: lenses[i % lenses.length],
        presentUserIds: [m.authorId],
        focusUserId: m.authorId,
        topic: m.content,
      },
      10_000,
    );
    out.push(msSince(t));
    if (!r.ok) throw new Error(`context failed: ${r.error.message}`);
  }
  return out;
}
