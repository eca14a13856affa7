import type { INestApplication } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import {
  subject,
  Subjects,
  type MemorySearchResult,
  type MessageCreated,
} from '@dirigent/contracts';
import { epochTimerKey } from '@dirigent/memory-domain';
import type { Messaging } from '@dirigent/messaging';
import { migrate } from '@dirigent/persistence';
import { startServiceApp } from '@dirigent/service-kit';
import { DurableTimers } from '@dirigent/timers';
import { snowflake, testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import { MemoryService } from '../../services/memory/memory.module';
import { msSince, percentile, round, type BenchResult } from '../stats';
import { OkapiBm25, recallAt } from './okapi';
import { archiveFallbackCount } from '../../services/memory/adapters/metrics';
import { heldoutCorpora } from './heldout-corpus';
import { recallCorpus, SHAPES, type RecallCorpus } from './recall-corpus';
import { SESSION_DEV_SEEDS, sessionCorpora } from './session-corpus';

/**
 * Corpora asked in one run, so that no one draw or shape decides: three guilds of a dozen
 * people in five channels, and ten conversations of two friends (each its own guild).
 */
const RUNS = [
  ...[11, 12, 13].map((seed) => ({ seed, shape: 'guild' as const })),
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((seed) => ({ seed, shape: 'pair' as const })),
];

/** A corpus as the bench asks it: one guild's messages and its questions with evidence. */
type Corpus = Omit<RecallCorpus, 'questions'> & {
  questions: { text: string; evidence: string[]; kind: string }[];
};

/**
 * Recall on three corpora in one run: the generated one of `recall-corpus.ts` (`recall_*`),
 * the hand-written held-out conversations of `heldout-corpus.ts` (`heldout_*`) and the
 * generated two-friend sessions of `session-corpus.ts` (`sessions_*`). Each
 * corpus goes through JetStream into a fresh guild as Discord `message.created` events
 * (speaker as `authorName`, the sessions' dates as `createdAt`), then every question is
 * asked of `dirigent.memory.search` (`k: 10`, all layers) and of plain Okapi BM25 over the
 * same messages prefixed with their speakers' names. Prints recall@5/@10 of both, their
 * ratio, recall@10 by shape and by kind of question, and the search latency while it runs.
 */
export async function benchRecall(messaging: Messaging): Promise<BenchResult> {
  const embedder = process.env.DIRIGENT_MEMORY_EMBEDDER ?? 'local';
  await migrate(testDatabaseUrl());
  const { app } = await startServiceApp(MemoryService, {
    ...process.env,
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDatabaseUrl(),
    MEMORY_PORT: '0',
    LOG_LEVEL: 'error',
    DIRIGENT_MEMORY_EMBEDDER: embedder,
  });
  try {
    const now = Date.now();
    const generated = RUNS.map(({ seed, shape }) => ({
      shape,
      corpus: recallCorpus(seed, now, SHAPES[shape]) as Corpus,
    }));
    const heldout = heldoutCorpora().map((corpus) => ({ shape: 'pair', corpus }));
    // DIRIGENT_BENCH_RECALL_ONE_CHANNEL=1: the sessions' conversations all in one channel.
    const sessions = process.env.DIRIGENT_BENCH_RECALL_ONE_CHANNEL
      ? [{ shape: 'one-channel', corpus: oneChannel(sessionCorpora()) }]
      : sessionCorpora().map((corpus) => ({ shape: 'pair', corpus }));
    // DIRIGENT_BENCH_RECALL=generated,heldout,sessions (any of them) asks those only;
    // sessions-dev asks the sessions' development split (never by default).
    const only = (process.env.DIRIGENT_BENCH_RECALL || 'generated,heldout,sessions').split(',');
    return {
      ...(only.includes('generated') ? await recallOn(app, messaging, 'recall', generated) : {}),
      ...(only.includes('heldout') ? await recallOn(app, messaging, 'heldout', heldout) : {}),
      ...(only.includes('sessions') ? await recallOn(app, messaging, 'sessions', sessions) : {}),
      ...(only.includes('sessions-dev')
        ? await recallOn(app, messaging, 'sessions_dev', devSessions())
        : {}),
    };
  } finally {
    await app.close();
  }
}

/** The sessions' development split, one guild per conversation. */
function devSessions(): { shape: string; corpus: Corpus }[] {
  return sessionCorpora(SESSION_DEV_SEEDS).map((corpus) => ({ shape: 'pair', corpus }));
}

/** Recall of Dirigent and BM25 over corpora, each in its own guild; keys start with `prefix`. */
async function recallOn(
  app: INestApplication,
  messaging: Messaging,
  prefix: string,
  corpora: { shape: string; corpus: Corpus }[],
): Promise<BenchResult> {
  const ours: string[][] = [];
  const anchor: string[][] = [];
  const evidence: string[][] = [];
  const kinds = new Map<string, { n: number; ours: number; bm25: number }>();
  const latencies: number[] = [];
  let messages = 0;
  const fallbacks = await archiveFallbackCount();
  for (const { shape, corpus: c } of corpora) {
    // Discord ids of this guild's messages: distinct from every other run's.
    const base = BigInt(Date.now()) * 1_000_000n;
    const ids = new Map(c.messages.map((m) => [m.messageId, String(base + BigInt(m.messageId))]));
    const guildId = await ingest(app, messaging, c, ids);
    messages += c.messages.length;
    const bm25 = new OkapiBm25(
      c.messages.map((m) => ({ id: m.messageId, speaker: c.people[m.author], text: m.content })),
    );
    for (const q of c.questions) {
      const t = process.hrtime.bigint();
      const r = await messaging.request<MemorySearchResult>(
        Subjects.memory.search,
        { guildId, query: q.text, k: 10 },
        10_000,
      );
      latencies.push(msSince(t));
      if (!r.ok) throw new Error(`search failed: ${r.error.message}`);
      const got = r.data.hits.flatMap((h) => (h.messageId ? [h.messageId] : []));
      const base = bm25.search(q.text, 10).map((id) => ids.get(id)!);
      const ev = q.evidence.map((id) => ids.get(id)!);
      // DIRIGENT_BENCH_RECALL_MISSES=1 prints each question missed, to read why.
      if (process.env.DIRIGENT_BENCH_RECALL_MISSES && !got.some((id) => ev.includes(id))) {
        const said = q.evidence.map((id) => c.messages.find((m) => m.messageId === id)!.content);
        const top = r.data.hits.slice(0, 3).map((h) => h.text);
        console.error(JSON.stringify({ kind: q.kind, question: q.text, evidence: said, top }));
      }
      ours.push(got);
      anchor.push(base);
      evidence.push(ev);
      for (const kind of [q.kind, shape]) {
        const k = kinds.get(kind) ?? { n: 0, ours: 0, bm25: 0 };
        k.n++;
        if (got.some((id) => ev.includes(id))) k.ours++;
        if (base.some((id) => ev.includes(id))) k.bm25++;
        kinds.set(kind, k);
      }
    }
  }
  const at = (lists: string[][], k: number) => round(recallAt(lists, evidence, k), 3);
  const result: BenchResult = {
    [`${prefix}_corpus`]: `${corpora.length} guilds, ${messages} messages, ${evidence.length} questions`,
    [`${prefix}_at_5_dirigent`]: at(ours, 5),
    [`${prefix}_at_5_bm25`]: at(anchor, 5),
    [`${prefix}_at_5_ratio`]: round(at(ours, 5) / at(anchor, 5), 2),
    [`${prefix}_at_10_dirigent`]: at(ours, 10),
    [`${prefix}_at_10_bm25`]: at(anchor, 10),
    [`${prefix}_at_10_ratio`]: round(at(ours, 10) / at(anchor, 10), 2),
    [`${prefix}_search_p50_ms`]: round(percentile(latencies, 50), 1),
    [`${prefix}_search_p95_ms`]: round(percentile(latencies, 95), 1),
    // Searches ranked by Postgres full text while the guild's word index loaded: a figure
    // that falls for no other reason shows up here.
    [`${prefix}_searches_without_word_index`]: (await archiveFallbackCount()) - fallbacks,
  };
  for (const [kind, k] of kinds) {
    result[`${prefix}_at_10_${kind.replace(/-/g, '_')}`] =
      `${round(k.ours / k.n, 2)} vs BM25 ${round(k.bm25 / k.n, 2)} (${k.n} questions)`;
  }
  return result;
}

/** Publishes one corpus into a new guild and waits until the archive holds all of it. */
async function ingest(
  app: INestApplication,
  messaging: Messaging,
  c: Corpus,
  ids: Map<string, string>,
): Promise<string> {
  const guildId = snowflake();
  const channels = Array.from({ length: c.channels }, () => snowflake());
  const authors = c.people.map(() => snowflake());
  const events: MessageCreated[] = c.messages.map((m) => ({
    guildId,
    channelId: channels[m.channel],
    messageId: ids.get(m.messageId)!,
    authorId: authors[m.author],
    authorName: c.people[m.author],
    authorIsBot: false,
    content: m.content,
    createdAt: new Date(m.at).toISOString(),
  }));
  for (let i = 0; i < events.length; i += 500) {
    await Promise.all(
      events
        .slice(i, i + 500)
        .map((data) =>
          messaging.publishEvent(
            subject.discordEvent(guildId, data.channelId, 'message.created'),
            'message.created',
            data,
            { id: `discord:${data.messageId}` },
          ),
        ),
    );
  }
  const connection = app.get(MikroORM).em.getConnection();
  await waitFor(
    async () => {
      const [row] = await connection.execute<{ count: string }[]>(
        'select count(*) from memory_message where guild_id = ?',
        [guildId],
      );
      return Number(row.count) >= events.length;
    },
    300_000,
    250,
    'recall corpus ingested',
  );
  // Epochs close as they would (their gap is long past): the timers are cancelled
  // afterwards so that they do not stay in the machine's NATS.
  const timers = await DurableTimers.open(messaging, 'memory');
  for (const ch of channels) await timers.cancel(epochTimerKey(guildId, ch));
  return guildId;
}

/** Corpora as one guild's single channel: their people side by side, their messages interleaved. */
function oneChannel(corpora: Corpus[]): Corpus {
  const people: string[] = [];
  const messages: Corpus['messages'] = [];
  const questions: Corpus['questions'] = [];
  corpora.forEach((c, n) => {
    const id = (m: string) => `${n + 1}${m.padStart(6, '0')}`;
    const offset = people.length;
    people.push(...c.people);
    for (const m of c.messages) {
      messages.push({ ...m, channel: 0, author: m.author + offset, messageId: id(m.messageId) });
    }
    for (const q of c.questions) questions.push({ ...q, evidence: q.evidence.map(id) });
  });
  messages.sort((a, b) => a.at - b.at);
  return { people, channels: 1, messages, questions };
}
