import { Inject, Injectable } from '@nestjs/common';
import { MEMORY_SEARCH_K, type MemoryHit, type MemorySearchRequest } from '@dirigent/contracts';
import {
  rankMessages,
  reciprocalRankFusion,
  SEARCH_LAYERS,
  validityFactor,
  type MemoryItem,
  type RankedList,
  type ScoredItem,
  type SearchLayer,
  visibleWith,
} from '@dirigent/memory-domain';
import { Clock } from '@dirigent/service-kit';
import { ArchiveIndex } from '../adapters/archive-index';
import { AudienceScopes } from '../adapters/postgres/channel-audience.store';
import { observeArchiveFallback } from '../adapters/metrics';
import type { ArchiveFilter } from '../adapters/postgres/sql';
import { Indexer } from './indexer';
import { LayerReads, ranked } from './layer-reads';
import { RerankHits } from './rerank-hits';
import { VECTOR_STORE, type VectorStore } from './ports';

export interface SearchQuery extends ArchiveFilter {
  k: number;
  layers?: readonly SearchLayer[];
}

const CANDIDATES = 50;
/**
 * How long a search waits for its guild's word index to load before using Postgres's full
 * text, a much poorer ranking (on the held-out bench corpus, recall@10 0.59 against 0.80):
 * a load that has read its last page (at most a page of rows left to index) finishes
 * within the longer wait; a large guild's load after a restart takes seconds, and its
 * searches meanwhile answer from Postgres at once.
 */
const INDEX_WAIT_MS = { loading: 50, finishing: 250 };
/** Messages up to which a search waits for the guild's first vector load. */
const SMALL_GUILD = 5_000;
/**
 * How much each list counts in the fusion. The archive's own ranking (BM25, context,
 * names, dates, vectors: `rankMessages`) leads. The other layers follow: an epoch summary
 * or a fact first by both its words and its vector ranks with the archive's 16th, so the
 * messages themselves fill the first places (a summary's generic words — "messages",
 * "starting" — otherwise beat the message that answers).
 */
const WEIGHTS = { archive: 1, layer: 0.5, names: 0.5, vector: 0.3 };

/**
 * Hybrid search over the guild's layers. The archive is ranked in process
 * (`rankMessages`: BM25 with speakers' names, neighbouring turns as context, the person
 * and time a question names, vector similarity); the other layers by Postgres full text
 * and their vectors; the lists are fused by reciprocal rank. No recency prior: months-old
 * evidence is as good as yesterday's. A fact that no longer holds (and the message it
 * came from) ranks after the current one.
 */
@Injectable()
export class SearchMemory {
  constructor(
    private readonly reads: LayerReads,
    private readonly indexer: Indexer,
    private readonly archive: ArchiveIndex,
    private readonly rerank: RerankHits,
    private readonly audiences: AudienceScopes,
    @Inject(VECTOR_STORE) private readonly vectors: VectorStore,
    private readonly clock: Clock,
  ) {}

  /**
   * `Subjects.memory.search`: the hybrid search, its first hits reordered by the model
   * when reranking is on (`RerankHits`). With `forChannelId`, only what that channel's
   * audience may see; without it, the admin view (the control page's search).
   */
  async run(r: MemorySearchRequest): Promise<{ hits: MemoryHit[] }> {
    const k = Math.min(r.k ?? MEMORY_SEARCH_K.default, MEMORY_SEARCH_K.max);
    // Read while the search's own reads start: its full text needs no scope, and the
    // ranking awaits the scope before it filters.
    const hidden = r.forChannelId ? this.audiences.hiddenFor(r.guildId, r.forChannelId) : undefined;
    const found = await this.search(
      r.guildId,
      r.query,
      {
        k: this.rerank.fetch(k),
        layers: r.layers,
        channelId: r.channelId,
        authorId: r.authorId,
        since: r.since ? Date.parse(r.since) : undefined,
        until: r.until ? Date.parse(r.until) : undefined,
      },
      hidden,
    );
    const hits = (await this.rerank.apply(r.guildId, r.query, found)).slice(0, k);
    return {
      hits: hits.map((h) => ({
        layer: h.layer as MemoryHit['layer'],
        id: h.id,
        ...(h.channelId ? { channelId: h.channelId } : {}),
        ...(h.authorId ? { authorId: h.authorId } : {}),
        ...(h.messageId ? { messageId: h.messageId } : {}),
        text: h.text,
        at: new Date(h.at).toISOString(),
        score: Number(h.score.toFixed(6)),
      })),
    };
  }

  /**
   * `scope`, when given, is the audience read still in flight: the channels this search may
   * not show, joined to `q.hiddenChannelIds` before anything is ranked or filtered.
   */
  async search(
    guildId: string,
    query: string,
    asked: SearchQuery,
    scope?: Promise<Set<string>>,
  ): Promise<ScoredItem[]> {
    const layers = new Set(asked.layers?.length ? asked.layers : SEARCH_LAYERS);
    const has = (l: SearchLayer) => layers.has(l);
    const now = this.clock.now();
    // The other layers' full text needs nothing from the archive's ranking: Postgres answers
    // it while this process ranks the archive, and only the rows of the ranked keys are
    // read after.
    const layerText = this.reads.fullText(guildId, query, has, CANDIDATES);
    // Settled even when the search fails before it is awaited.
    layerText.catch(() => undefined);
    const [index, hidden] = await Promise.all([
      has('archive')
        ? this.archive.get(guildId, INDEX_WAIT_MS.loading, INDEX_WAIT_MS.finishing)
        : null,
      scope,
    ]);
    if (has('archive') && !index) observeArchiveFallback();
    const q: SearchQuery = hidden
      ? {
          ...asked,
          hiddenChannelIds: asked.hiddenChannelIds
            ? new Set([...asked.hiddenChannelIds, ...hidden])
            : hidden,
        }
      : asked;
    const [nearest, postgres] = await Promise.all([
      // A small guild's vectors load in moments: worth waiting for; a large one's take
      // seconds after a restart, and the search goes on without them meanwhile.
      this.nearest(guildId, query, [...layers], q, !index || index.size > SMALL_GUILD ? 50 : 2_000),
      has('archive') && !index ? this.reads.postgresArchive(guildId, query, q, CANDIDATES) : null,
    ]);
    // The fused list's first `shown` are read back; with the word index, archive keys come
    // from its ranking alone, so that its first `shown` are all that can be among them.
    const shown = q.k * 4 + 20;
    const archive: RankedList = index
      ? rankMessages(index, query, {
          now,
          limit: Math.min(CANDIDATES * 2, shown),
          filter: q,
          vectorScores: new Map(
            nearest.filter((n) => n.layer === 'archive').map((n) => [n.refId, n.score]),
          ),
        }).map((h) => ({ key: `archive:${h.id}`, at: 0 }))
      : ranked(postgres?.fullText ?? [], 'archive');
    // The archive's vectors are one of its ranking's signals once its index is loaded.
    const vectors: RankedList = nearest
      .filter((n) => !index || n.layer !== 'archive')
      .map((n) => ({ key: `${n.layer}:${n.refId}`, at: 0 }));
    const named = postgres ? ranked(postgres.named, 'archive') : [];
    const { fullText, items } = await this.reads.read(guildId, layerText, [
      archive,
      vectors,
      named,
    ]);
    const lists: [RankedList, number][] = [
      [archive, WEIGHTS.archive],
      ...fullText.map((l): [RankedList, number] => [l, WEIGHTS.layer]),
      [vectors, WEIGHTS.vector],
      [named, WEIGHTS.names],
    ];
    const fused = reciprocalRankFusion(
      lists.map(([l]) => l),
      { now, weights: lists.map(([, w]) => w), recencyWeight: 0 },
    ).slice(0, shown);
    const asOf = q.until ?? now;
    const out: ScoredItem[] = [];
    for (const f of fused) {
      const item = items.get(f.key);
      if (!item || !matches(item, q)) continue;
      out.push({ ...item, score: f.score * validityFactor(item, asOf) });
    }
    out.sort((a, b) => b.score - a.score);
    // One hit per message: a highlight is a verbatim copy of an archived message.
    const messages = new Set<string>();
    return out
      .filter((h) => !h.messageId || (!messages.has(h.messageId) && !!messages.add(h.messageId)))
      .slice(0, q.k);
  }

  /**
   * The nearest items by vector: the archive's from its index when the vectors are derived
   * there (filtered as the search is), the other layers' (or all) from the vector store.
   */
  private async nearest(
    guildId: string,
    query: string,
    layers: SearchLayer[],
    filter: SearchQuery,
    firstLoadWaitMs: number,
  ) {
    const qv = await this.indexer.query(guildId, query);
    if (!qv) return [];
    const derived = layers.includes('archive')
      ? this.archive.nearest(guildId, qv.model, query, CANDIDATES, filter)
      : null;
    const stored = derived ? layers.filter((l) => l !== 'archive') : layers;
    const found = stored.length
      ? await this.vectors.nearest(guildId, qv.model, qv.vector, {
          layers: stored,
          k: CANDIDATES,
          firstLoadWaitMs,
        })
      : [];
    const archive = (derived ?? []).map((h) => ({
      layer: 'archive' as const,
      refId: h.id,
      score: h.score,
    }));
    // Each its own candidates: sharing them made the archive's vector signal depend on
    // whether other layers' vectors (written by moment batches and epoch closes, loaded in
    // the background) happened to exist yet, and a search's answer on its timing.
    return [...archive, ...found]
      .filter((f) => f.score > 0.05) // below this a vector says little: noise in the fusion
      .sort((a, b) => b.score - a.score);
  }
}

function matches(item: MemoryItem, q: SearchQuery): boolean {
  if (q.hiddenChannelIds && !visibleWith(q.hiddenChannelIds, item)) return false;
  if (q.channelId && item.channelId !== q.channelId) return false;
  if (q.excludeChannelId && item.channelId === q.excludeChannelId) return false;
  if (q.authorId && item.authorId !== q.authorId) return false;
  if (q.since !== undefined && item.at < q.since) return false;
  if (q.until !== undefined && item.at > q.until) return false;
  return true;
}
