import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { INestApplication } from '@nestjs/common';
import { MikroORM, type PostgreSqlConnection } from '@mikro-orm/postgresql';
import {
  Durables,
  Streams,
  Subjects,
  type MemoryContextResult,
  type MemorySearchResult,
} from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { migrate } from '@dirigent/persistence';
import { startServiceApp } from '@dirigent/service-kit';
import { closeMessaging, snowflake, testMessaging, testNatsUrl, waitFor } from '@dirigent/testing';
import { ArchiveIndex } from '../services/memory/adapters/archive-index';
import { MemoryService } from '../services/memory/memory.module';
import { filler, prng } from './memory/corpus';
import { JobsReplica } from './memory/jobs-replica';
import { TrafficThread } from './memory/traffic-thread';
import { OkapiBm25 } from './memory/okapi';
import { seedArchive, seededGuild, type SeededGuild } from './memory/seed';
import { profilePhase } from './profile';
import { msSince, percentile, round, type BenchResult } from './stats';

/** The steady stream a live community keeps up throughout (messages a second). */
const STEADY = 200;
/** A channel's epoch closes after this much silence (the traffic moves on every 10 s). */
const EPOCH_GAP_MS = 4_000;
const SEARCHES = 200;
const CONTEXTS = 100;

export interface LiveRowOptions {
  /** Messages in the guild's archive before the service starts. */
  total: number;
  /** Messages published as fast as possible while searches run (the sustained ingest). */
  burst: number;
  /** Measure plain BM25 over the same archive (the anchor; skipped for a million). */
  anchor: boolean;
  /**
   * `split`: the service as deployed, a `queries` replica (in this process, measured) beside
   * a `jobs` replica (a child process: the ingest, moment batches, epoch closes);
   * `one`: one process in the `all` role does everything.
   */
  layout: 'split' | 'one';
}

/**
 * One row of `memory-scale` under a live community's load: a guild of `total` messages
 * (seeded into Postgres, `memory/seed.ts`), the service started, and from then on 200
 * messages a second published into ten channels at a time, so moment batches and epoch
 * closes keep happening (`memory/live-traffic.ts`). Measured meanwhile: the time the
 * guild's index takes to load (its words, then its vectors) and the RSS it adds (per
 * 100,000 messages), search and context latency, then the ingest rate of a burst of
 * `burst` messages while searches keep running (and their p95 then), and after a restart
 * the first search (Postgres full text while the index loads again) and the time to the
 * index being ready (words, then vectors). The machine's load average is reported with
 * the figures.
 */
export async function liveRow(databaseUrl: string, o: LiveRowOptions): Promise<BenchResult> {
  await migrate(databaseUrl);
  const guild = seededGuild(snowflake(), BigInt(Date.now()) * 100_000n);
  const progress = (what: string) => process.stderr.write(`memory live ${o.total}: ${what}\n`);
  const t0 = process.hrtime.bigint();
  await seedArchive(databaseUrl, guild, o.total, progress);
  const seedS = msSince(t0) / 1000;
  progress(`seeded in ${Math.round(seedS)} s`);

  const messaging = await testMessaging('memory-live-bench');
  let app: INestApplication | undefined;
  let jobs: JobsReplica | undefined;
  const env = {
    DIRIGENT_MEMORY_EMBEDDER: 'local',
    DIRIGENT_EPOCH_GAP_MS: String(EPOCH_GAP_MS),
  };
  const start = () =>
    startMemoryApp(databaseUrl, {
      ...env,
      DIRIGENT_MEMORY_ROLE: o.layout === 'split' ? 'queries' : 'all',
    });
  const ids = BigInt(Date.now()) * 1_000_000n;
  // The community's publishers on threads of their own (`memory/traffic-thread.ts`).
  const traffic = new TrafficThread(guild, STEADY, ids);
  const burstTraffic = new TrafficThread(guild, 0, ids + 500_000_000n);
  try {
    if (o.layout === 'split') jobs = await JobsReplica.start(databaseUrl, env);
    app = await start();
    const db = app.get(MikroORM).em.getConnection();
    const count = async (q: string, params: unknown[]) =>
      Number((await db.execute<{ n: string }[]>(q, params))[0].n);
    const epochs = () =>
      count('select count(*) n from memory_epoch where guild_id = ?', [guild.guildId]);
    const batchesRun = async () =>
      (await messaging.client.jsm.consumers.info(Streams.timerFired, Durables.memoryMoments))
        .delivered.consumer_seq;

    const rssStarted = rss();
    progress('loading the index while the community talks');
    const tLoad = process.hrtime.bigint();
    await traffic.start();
    await app.get(ArchiveIndex).get(guild.guildId, 3_600_000);
    const loadMs = msSince(tLoad);
    // Searchable by its words from here; the RSS counts the vectors that follow them.
    await app.get(ArchiveIndex).vectorsPlaced(guild.guildId);
    const vectorsMs = msSince(tLoad);
    const rssReady = rss();

    const rand = prng(7);
    const queries = Array.from({ length: SEARCHES }, () => filler(rand));
    const search = async (query: string) => {
      const r = await messaging.request<MemorySearchResult>(
        Subjects.memory.search,
        { guildId: guild.guildId, query, k: 8, forChannelId: guild.channelIds[0] },
        30_000,
      );
      if (!r.ok) throw new Error(`search failed: ${r.error.message}`);
      return r.data.hits;
    };
    const timed = async (fn: () => Promise<unknown>) => {
      const t = process.hrtime.bigint();
      await fn();
      return msSince(t);
    };

    progress('searching and reading contexts while it talks');
    const epochs0 = await epochs();
    const batches0 = await batchesRun();
    const published0 = await traffic.published();
    const tLive = process.hrtime.bigint();
    const cpuLive = process.cpuUsage();
    const jobsCpuLive = jobs?.cpuMs();
    const watch = watchStalls(app);
    const searchMs: number[] = [];
    const contextMs: number[] = [];
    await profilePhase('memory-live', async () => {
      for (const q of queries) searchMs.push(await timed(() => search(q)));
      for (let i = 0; i < CONTEXTS; i++) {
        contextMs.push(await timed(() => context(messaging, guild, i)));
      }
    });
    const liveS = msSince(tLive) / 1000;
    const liveCpu = process.cpuUsage(cpuLive);
    const jobsLiveCpu = jobs && jobs.cpuMs() - jobsCpuLive!;
    const load1 = loadAverage();
    const liveStalls = watch.stop();

    progress(`a burst of ${o.burst} while searches run`);
    const burstChannels = guild.channelIds.slice(40);
    const inBurst = () =>
      count(`select count(*) n from memory_message where guild_id = ? and message_id >= ?`, [
        guild.guildId,
        String(ids + 500_000_000n),
      ]);
    await burstTraffic.published(); // connected
    const tBurst = process.hrtime.bigint();
    const cpuBurst = process.cpuUsage();
    const jobsCpuBurst = jobs?.cpuMs();
    const burstWatch = watchStalls(app);
    let stored = false;
    const burstSearchMs: number[] = [];
    const searching = (async () => {
      for (let i = 0; !stored; i++)
        burstSearchMs.push(await timed(() => search(queries[i % SEARCHES])));
    })();
    await profilePhase('memory-live-burst', async () => {
      await burstTraffic.burst(o.burst, burstChannels);
      await waitFor(async () => (await inBurst()) >= o.burst, 1_200_000, 100, 'burst stored');
    });
    const burstS = msSince(tBurst) / 1000;
    const burstCpu = process.cpuUsage(cpuBurst);
    const jobsBurstCpu = jobs && jobs.cpuMs() - jobsCpuBurst!;
    stored = true;
    await searching;
    await burstTraffic.stop();
    const burstStalls = burstWatch.stop();
    const epochsDuring = (await epochs()) - epochs0;
    const batchesDuring = (await batchesRun()) - batches0;
    const steadyRate = ((await traffic.published()) - published0) / (msSince(tLive) / 1000);

    progress('restarting');
    await app.close();
    app = undefined;
    const tStart = process.hrtime.bigint();
    app = await start();
    const firstMs = await timed(() => search(queries[0]));
    await app.get(ArchiveIndex).get(guild.guildId, 3_600_000);
    const readyMs = msSince(tStart);
    await app.get(ArchiveIndex).vectorsPlaced(guild.guildId);
    const vectorsAfterRestartMs = msSince(tStart);
    const afterReadyMs = await timed(() => search(queries[1]));
    await traffic.stop();

    const per100k = o.total / 100_000;
    const out: BenchResult = {
      layout:
        o.layout === 'split'
          ? 'a queries replica (measured here) beside a jobs replica (its own process)'
          : 'one process does everything (role all)',
      messages: o.total,
      seeded_in_s: Math.round(seedS),
      steady_ingest_msgs_per_s: Math.round(steadyRate),
      epochs_closed_while_measuring: epochsDuring,
      moment_batches_run_while_measuring: batchesDuring,
      search_p50_ms: round(percentile(searchMs, 50), 1),
      search_p95_ms: round(percentile(searchMs, 95), 1),
      context_p95_ms: round(percentile(contextMs, 95), 1),
      searches_and_contexts_s: Math.round(liveS),
      // A second of the live phase: the service at 200 msg/s, its jobs, the queries, the publisher.
      live_cpu_ms_per_s: Math.round((liveCpu.user + liveCpu.system) / 1000 / liveS),
      ...(jobsLiveCpu !== undefined
        ? { jobs_replica_live_cpu_ms_per_s: Math.round(jobsLiveCpu / liveS) }
        : {}),
      event_loop_delay_p99_max_ms: liveStalls.loop,
      db_acquires_waiting_max: liveStalls.pool,
      burst_ingest_msgs_per_s: Math.round(o.burst / burstS),
      // Every thread of the process: the service, the searches and the publishers.
      burst_cpu_ms_per_1k_msgs: Math.round(
        (burstCpu.user + burstCpu.system) / 1000 / (o.burst / 1000),
      ),
      ...(jobsBurstCpu !== undefined
        ? { jobs_replica_burst_cpu_ms_per_1k_msgs: Math.round(jobsBurstCpu / (o.burst / 1000)) }
        : {}),
      search_p95_during_burst_ms: round(percentile(burstSearchMs, 95), 1),
      searches_during_burst: burstSearchMs.length,
      burst_event_loop_delay_p99_max_ms: burstStalls.loop,
      burst_db_acquires_waiting_max: burstStalls.pool,
      index_load_ms: Math.round(loadMs),
      index_vectors_placed_ms: Math.round(vectorsMs),
      rss_mb: rssReady,
      ...(jobs ? { jobs_replica_rss_mb: jobs.rssMb() } : {}),
      index_rss_mb_per_100k_msgs: round((rssReady - rssStarted) / per100k, 0),
      first_search_after_restart_ms: Math.round(firstMs),
      index_ready_after_restart_ms: Math.round(readyMs),
      index_vectors_placed_after_restart_ms: Math.round(vectorsAfterRestartMs),
      search_after_ready_ms: Math.round(afterReadyMs),
      load_average_1m: `${load1} (start) / ${loadAverage()} (end)`,
    };
    if (o.anchor) {
      const bm25 = new OkapiBm25(guildTexts(guild, o.total));
      const anchorMs = queries.slice(0, 50).map((q) => {
        const t = process.hrtime.bigint();
        bm25.search(q, 8);
        return msSince(t);
      });
      out.plain_bm25_scan_p95_ms = round(percentile(anchorMs, 95), 1);
    }
    return out;
  } finally {
    await traffic.stop();
    await burstTraffic.stop();
    await app?.close();
    await jobs?.stop();
    await closeMessaging(messaging);
  }
}

/** The memory service in this process on the bench's NATS and `databaseUrl`. */
export async function startMemoryApp(
  databaseUrl: string,
  env: Record<string, string>,
): Promise<INestApplication> {
  const { app } = await startServiceApp(MemoryService, {
    ...process.env,
    NATS_URL: testNatsUrl(),
    DATABASE_URL: databaseUrl,
    MEMORY_PORT: '0',
    LOG_LEVEL: 'error',
    ...env,
  });
  return app;
}

/** `memory.context` of the lenses that read the archive, for a channel of the guild. */
async function context(messaging: Messaging, guild: SeededGuild, i: number) {
  const lenses = ['live+dossiers', 'archive-topic-deep', 'archive-person-deep', 'full-rich'];
  const author = guild.authors[(i * 37) % guild.authors.length];
  const r = await messaging.request<MemoryContextResult>(
    Subjects.memory.context,
    {
      guildId: guild.guildId,
      channelId: guild.channelIds[i % 10],
      strategy: lenses[i % lenses.length],
      presentUserIds: [author.id],
      focusUserId: author.id,
      topic: filler(prng(i)),
    },
    30_000,
  );
  if (!r.ok) throw new Error(`context failed: ${r.error.message}`);
}

/** The seeded messages as plain BM25 sees them (the seed's own choice of line and author). */
function guildTexts(guild: SeededGuild, total: number) {
  const rand = prng(99);
  const lines = Array.from({ length: 20_000 }, () => filler(rand));
  return Array.from({ length: total }, (_, g) => ({
    id: String(g),
    speaker: guild.authors[(g * 7919) % guild.authors.length].name,
    text: lines[(g * 104729) % lines.length],
  }));
}

/**
 * Where a query could wait in this process: the event loop's delay (p99 / max, ms) and the
 * most connection acquires waiting at once in the ORM's pool (sampled every 5 ms).
 */
function watchStalls(app: INestApplication) {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const pool = (
    (app.get(MikroORM).em.getConnection() as PostgreSqlConnection).getKnex().client as {
      pool: { numPendingAcquires(): number };
    }
  ).pool;
  let waiting = 0;
  const timer = setInterval(() => (waiting = Math.max(waiting, pool.numPendingAcquires())), 5);
  return {
    stop: () => {
      clearInterval(timer);
      loop.disable();
      return {
        loop: `${round(loop.percentile(99) / 1e6, 1)} / ${round(loop.max / 1e6, 1)}`,
        pool: waiting,
      };
    },
  };
}

const rss = () => Math.round(process.memoryUsage().rss / 1_048_576);

const loadAverage = () => loadavg()[0].toFixed(2);
