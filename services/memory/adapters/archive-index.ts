import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import {
  FeatureIndex,
  LexicalIndex,
  overBudget,
  VectorIndex,
  type LexicalDoc,
  type LexicalFilter,
} from '@dirigent/memory-domain';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { EMBEDDER, type Embedder } from '../application/ports';
import { answersQueries, type MemoryConfig } from '../config';
import { TimeSlice } from '../application/time-slice';
import { observeEviction, reportIndexBytes } from './metrics';
import { outsideLane } from './postgres/query-lane';
import { lexicalDoc, sql, type Row } from './postgres/sql';

/** Rows read per query while loading a guild. */
const PAGE = 10_000;
/** Rows another replica may commit out of sequence order are looked for this far back. */
const LOOKBACK = 2_000;
/** How often a guild's index looks for rows it did not write itself (other replicas). */
const CATCH_UP_MS = 1_000;
/** How far before its last look a look at other replicas' deletions reaches. */
const DELETIONS_LOOKBACK_MS = 60_000;
/**
 * Below this many messages every vector is scored (about the cost of rescoring the
 * candidates and reading their lists); above, candidates come by feature.
 */
const EXACT_BELOW = 8_192;
/**
 * Candidates by feature scored exactly, per hit asked for (and at least): the features'
 * sums leave out the 3- and 4-grams and the coordinates texts share by chance, which
 * reorder the closest few hundred (`feature-index.unit.spec.ts`). On the 100,000-message
 * bench guild, 800 candidates for a search's 50 hold as much of the exact top 10 as 1,200
 * (2,000: 3% more, for twice the scoring).
 */
const RESCORED_PER_HIT = 16;
const RESCORED_MIN = 400;
/**
 * A guild loaded with at least this many messages is ready for searches once its words are
 * indexed, its vectors following (`fillVectors`); a smaller one's load places them too.
 */
const VECTORS_AFTER = 20_000;

interface GuildIndex {
  index: LexicalIndex;
  /**
   * The messages' vectors when the embedder's are derived from the text (slot for slot
   * with `index`: both take each message once, in the same order); null otherwise.
   */
  vectors: VectorIndex | null;
  /** The vectors' candidates by shared feature (slot for slot with `vectors`). */
  features: FeatureIndex | null;
  /**
   * The texts of the slots indexed by their words whose vectors are not placed yet: the
   * text of slot `vectors.size + i` is `unplaced[unplacedFrom + i]`. Empty once the
   * vectors have caught up; from then on each message's vector is placed with its words.
   */
  unplaced: string[];
  unplacedFrom: number;
  /** Every indexed message's vector is placed (`nearest` answers). */
  vectorsReady: boolean;
  vectorsPlaced: Promise<void>;
  ready: boolean;
  /** The load has read its last page: only indexing what it read is left. */
  finishing: boolean;
  loaded: Promise<void>;
  /** Written or deleted while the load was reading: applied once it is done. */
  added: LexicalDoc[];
  removed: Set<string>;
  /** Batches being added in slices, and what was deleted meanwhile (kept out of them). */
  adding: number;
  gone: Set<string>;
  /**
   * The ids of those batches' rows not indexed yet: a catch-up leaves them to `add`
   * (it read them back and indexed them at once, in one turn of the event loop).
   */
  incoming: Set<string>;
  lastSeq: number;
  caughtUpAt: number;
  catchingUp?: Promise<void>;
  /** When it was last searched (a counter: the least recently used is evicted first). */
  usedAt: number;
  /** The heap it holds, as last measured, and its message count then. */
  bytes: number;
  measuredAt: number;
  /** Dropped (over the budget, or its partition went to another replica): its load stops. */
  evicted: boolean;
}

/** What a guild's index holds in this process (`ArchiveIndex.report`). */
export interface GuildIndexReport {
  guildId: string;
  ready: boolean;
  /** Its vectors are placed too (they follow the words in a large guild's load). */
  vectorsReady: boolean;
  messages: number;
  /** Estimated heap of its words, vectors and features. */
  bytes: number;
}

/**
 * The archive's lexical index: one {@link LexicalIndex} per guild in this process, loaded
 * from Postgres in pages when the service starts (every guild, in the background) or on a
 * guild's first search, then kept in step by the ingest (each committed batch) and by
 * deletions and forgets. A search that arrives while its guild is still loading is told
 * so (and uses Postgres full text meanwhile), so the first search after a start answers
 * at once. Rows written by another replica are picked up within a second; a row deleted
 * by one is filtered when hits are read back from the table. With an embedder whose
 * vectors are a function of the text (the offline one), each guild's archive vectors are
 * computed here as messages are indexed, instead of being stored and loaded; a large
 * guild's load makes it searchable by its words first and places its vectors after.
 *
 * With `DIRIGENT_MEMORY_INDEX_BUDGET_MB` the guilds held stay within that heap (estimated,
 * `report()`), the least recently searched evicted first and searched by full text until
 * reloaded; with guild partitions, only the leased partitions' guilds are held (`owns`).
 */
@Injectable()
export class ArchiveIndex implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('memory:archive-index');
  private readonly guilds = new Map<string, GuildIndex>();

  /** Rows read per query while loading a guild (smaller in tests, to load in pages). */
  pageSize = PAGE;
  /** Messages from which a loaded guild is ready before its vectors are placed. */
  vectorsAfter = VECTORS_AFTER;
  /** Heap the guilds held may take together (0: no limit). */
  budgetBytes: number;
  /** Whether this replica holds a guild's index (its partition's lease); all by default. */
  owns: (guildId: string) => boolean = () => true;
  private uses = 0;
  /** Whether this replica holds indexes at all (not memory's `jobs` role). */
  private readonly holds: boolean;
  /**
   * Whether the held guilds follow the table every `CATCH_UP_MS` by themselves (memory's
   * `queries` role, where no ingest adds to them), rather than each on its searches: one
   * read of the rows committed since `followedSeq`, whatever the number of guilds held.
   */
  private readonly follows: boolean;
  private followedSeq?: number;
  private followingTable?: Promise<void>;
  private following?: NodeJS.Timeout;
  /** The database's time of the last look at the deletions, and the jobs seen since. */
  private deletionsSeenAt?: Date;
  private readonly deletionsSeen = new Map<string, number>();
  private followingDeletions?: Promise<void>;

  constructor(
    private readonly em: EntityManager,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Optional() @Inject(SERVICE_CONFIG) config?: MemoryConfig,
  ) {
    this.budgetBytes = (config?.DIRIGENT_MEMORY_INDEX_BUDGET_MB ?? 0) * 1024 * 1024;
    const role = config?.DIRIGENT_MEMORY_ROLE ?? 'all';
    this.holds = answersQueries(role);
    this.follows = role === 'queries';
    if (!this.holds) this.owns = () => false;
    reportIndexBytes(() => this.heldBytes());
  }

  private preloadDone!: () => void;
  /**
   * Settles once the start's load of every guild is over (or failed): the vectors load
   * after it, so that the word index, the ranking's main signal, is ready first.
   */
  readonly preloaded = new Promise<void>((resolve) => (this.preloadDone = resolve));

  onApplicationBootstrap(): void {
    if (!this.holds) return this.preloadDone();
    this.following = setInterval(() => {
      if (this.follows) {
        this.followingTable ??= outsideLane(() => this.followTable())
          .catch((e: Error) => this.log.warn(`archive not followed: ${e.message}`))
          .finally(() => (this.followingTable = undefined));
      }
      this.followingDeletions ??= outsideLane(() => this.followDeletions())
        .catch((e: Error) => this.log.warn(`deletions not followed: ${e.message}`))
        .finally(() => (this.followingDeletions = undefined));
    }, CATCH_UP_MS);
    this.following.unref();
    // Following starts from the table's head before any guild loads: what a load misses
    // (committed after its last page) comes after that head.
    void (this.follows ? outsideLane(() => this.followFromHead()) : Promise.resolve())
      .catch((e: Error) => this.log.warn(`archive head not read: ${e.message}`))
      .then(() => this.preload())
      .catch((e: Error) => this.log.warn(`archive index not preloaded: ${e.message}`))
      .finally(() => this.preloadDone());
  }

  /**
   * The guild's index once loaded (waiting at most `waitMs` for a load under way, or
   * `finishingWaitMs` for one that has read its last page); null while it is still loading.
   */
  async get(
    guildId: string,
    waitMs: number,
    finishingWaitMs = waitMs,
  ): Promise<LexicalIndex | null> {
    if (!this.owns(guildId)) return null;
    const g = this.guild(guildId);
    g.usedAt = ++this.uses;
    this.enforceBudget(guildId);
    if (!g.ready) {
      let timer: NodeJS.Timeout | undefined;
      const wait = g.finishing ? finishingWaitMs : waitMs;
      await Promise.race([
        g.loaded,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, wait))),
      ]);
      clearTimeout(timer);
      if (!g.ready) return null;
    }
    if (!this.follows) this.catchUpSoon(guildId, g);
    return g.index;
  }

  onApplicationShutdown(): void {
    clearInterval(this.following);
  }

  private async followFromHead(): Promise<void> {
    const [head] = await sql(
      this.em.fork(),
      `select coalesce(max(seq), 0) as seq from memory_message`,
    );
    this.followedSeq ??= Number(head.seq);
  }

  /**
   * The rows committed since the last look (and `LOOKBACK` before it, for commits out of
   * sequence order), for every guild held: a ready guild's index takes those it lacks, a
   * loading one's takes those after its last (applied once its load is done). Looks again
   * at once while a look is full (a burst).
   */
  private async followTable(): Promise<void> {
    if (this.followedSeq === undefined) return this.followFromHead();
    for (;;) {
      const seen = await sql(
        this.em.fork(),
        `select seq, guild_id, message_id from memory_message where seq > ? order by seq limit ?`,
        [Math.max(0, this.followedSeq - LOOKBACK), LOOKBACK * 4],
      );
      for (const r of seen) this.followedSeq = Math.max(this.followedSeq, Number(r.seq));
      const wanted = seen.filter((r) => {
        const g = this.guilds.get(r.guild_id as string);
        if (!g || g.evicted) return false;
        if (!g.ready) return Number(r.seq) > g.lastSeq;
        return !g.index.has(r.message_id) && !g.incoming.has(r.message_id);
      });
      if (wanted.length) {
        const rows = await sql(
          this.em.fork(),
          `select seq, guild_id, message_id, channel_id, author_id, author_name, content, created_at
           from memory_message where seq in (select (jsonb_array_elements_text(?::jsonb))::bigint)
           order by seq`,
          [JSON.stringify(wanted.map((r) => String(r.seq)))],
        );
        const byGuild = new Map<string, Row[]>();
        for (const r of rows) {
          const list = byGuild.get(r.guild_id as string) ?? [];
          list.push(r);
          byGuild.set(r.guild_id as string, list);
        }
        for (const [guildId, list] of byGuild) await this.add(guildId, list);
      }
      if (seen.length < LOOKBACK * 4) return;
    }
  }

  /**
   * Drops from the held guilds the messages deleted or forgotten through another replica
   * (their redaction jobs, `memory_redaction`, recorded since the last look): the replica
   * that erased them dropped them from its own index at once, and the others' searches
   * must not rank, nor follow a second round through, what is gone. Looks back
   * `DELETIONS_LOOKBACK_MS` past its last look, for a deleting transaction that committed
   * after others had begun later; jobs already applied are skipped.
   */
  private async followDeletions(): Promise<void> {
    if (!this.guilds.size) return;
    const since = this.deletionsSeenAt
      ? new Date(this.deletionsSeenAt.getTime() - DELETIONS_LOOKBACK_MS)
      : null;
    const rows = await sql(
      this.em.fork(),
      `select t.at, r.id, r.guild_id, r.message_ids from (select now() as at) t
       left join memory_redaction r on ?::timestamptz is not null and r.created_at > ?::timestamptz`,
      [since, since],
    );
    const at = new Date(rows[0].at as string);
    for (const r of rows) {
      if (!r.id || this.deletionsSeen.has(r.id as string)) continue;
      this.deletionsSeen.set(r.id as string, at.getTime());
      this.remove(r.guild_id as string, r.message_ids as string[]);
    }
    for (const [id, seenAt] of this.deletionsSeen) {
      if (seenAt < at.getTime() - 2 * DELETIONS_LOOKBACK_MS) this.deletionsSeen.delete(id);
    }
    this.deletionsSeenAt = at;
  }

  /** Starts a catch-up with the table, unless one ran in the last `CATCH_UP_MS` or runs. */
  private catchUpSoon(guildId: string, g: GuildIndex): void {
    if (Date.now() - g.caughtUpAt <= CATCH_UP_MS || g.catchingUp || g.evicted) return;
    g.caughtUpAt = Date.now();
    g.catchingUp = outsideLane(() => this.catchUp(guildId, g))
      .catch((e: Error) => this.log.warn(`archive index catch-up failed: ${e.message}`))
      .finally(() => (g.catchingUp = undefined));
  }

  /**
   * Messages just committed, indexed a few milliseconds at a time (a batch of 1,024 held
   * the event loop for about 50 ms, and searches with it). A guild this process has not
   * indexed yet starts loading (its rows are in the table by now), so that its first
   * search finds the index ready.
   */
  async add(guildId: string, rows: Row[]): Promise<void> {
    // Another replica's guild, or (with a budget) one not held: its next search loads it.
    if (!this.owns(guildId) || (this.budgetBytes > 0 && !this.guilds.has(guildId))) return;
    const g = this.guild(guildId);
    for (const r of rows) {
      if (r.seq !== undefined) g.lastSeq = Math.max(g.lastSeq, Number(r.seq));
    }
    if (!g.ready) {
      g.added.push(...rows.map(lexicalDoc));
      return;
    }
    g.adding++;
    for (const r of rows) g.incoming.add(r.message_id);
    try {
      const slice = new TimeSlice();
      for (const r of rows) {
        if (slice.spent) await slice.next();
        g.incoming.delete(r.message_id);
        if (!g.gone.has(r.message_id)) this.index(g, lexicalDoc(r));
      }
    } finally {
      if (--g.adding === 0) {
        g.gone.clear();
        g.incoming.clear();
      }
    }
    if (g.index.size > g.measuredAt * 1.25 + 1_000) this.measure(g);
    this.enforceBudget(guildId);
  }

  /** Each guild held, with its estimated heap (for the metrics and the benchmark). */
  report(): GuildIndexReport[] {
    return [...this.guilds].map(([guildId, g]) => ({
      guildId,
      ready: g.ready,
      vectorsReady: g.ready && g.vectorsReady,
      messages: g.index.size,
      bytes: g.bytes,
    }));
  }

  /** `absent`: not held (never searched, or evicted); `loading`; `ready`. */
  state(guildId: string): 'absent' | 'loading' | 'ready' {
    const g = this.guilds.get(guildId);
    return !g ? 'absent' : g.ready ? 'ready' : 'loading';
  }

  /** Drops the guilds `which` names (their partition moved to another replica). */
  evict(which: (guildId: string) => boolean): void {
    for (const [guildId, g] of this.guilds) if (which(guildId)) this.drop(guildId, g, 'released');
  }

  private heldBytes(): number {
    return [...this.guilds.values()].reduce((sum, g) => sum + g.bytes, 0);
  }

  private drop(guildId: string, g: GuildIndex, why: 'budget' | 'released'): void {
    g.evicted = true;
    this.guilds.delete(guildId);
    observeEviction(why);
    this.log.log(`archive index of ${guildId} evicted (${why}, ${mb(g.bytes)} MB)`);
  }

  private measure(g: GuildIndex): void {
    g.bytes = g.index.bytes() + (g.vectors?.bytes() ?? 0) + (g.features?.bytes() ?? 0);
    g.measuredAt = g.index.size;
  }

  /** Over the budget: the least recently searched guilds go (`overBudget`), never `keep`. */
  private enforceBudget(keep: string): void {
    if (this.budgetBytes <= 0) return;
    const held = [...this.guilds].map(([id, g]) => ({ id, bytes: g.bytes, usedAt: g.usedAt }));
    for (const id of overBudget(held, this.budgetBytes, keep)) {
      this.drop(id, this.guilds.get(id)!, 'budget');
    }
  }

  /** Messages deleted (or forgotten): gone from the index at once. */
  remove(guildId: string, messageIds: readonly string[]): void {
    const g = this.guilds.get(guildId);
    if (!g) return;
    for (const id of messageIds) {
      this.unindex(g, id);
      if (!g.ready) g.removed.add(id);
      if (g.adding) g.gone.add(id);
    }
  }

  /**
   * The guild's messages nearest a query of the derived model, among those the filter
   * lets through; null when this index holds no vectors of that model for the guild
   * (another embedder, or the guild's vectors still loading). A small guild's vectors are all
   * scored; a larger one's candidates are those sharing the query's rarer features
   * (`FeatureIndex`), scored exactly: the cost follows the query's words, not the guild.
   */
  nearest(
    guildId: string,
    model: string,
    query: string,
    k: number,
    filter: LexicalFilter = {},
  ): { id: string; score: number }[] | null {
    const g = this.guilds.get(guildId);
    const derived = this.embedder.derived;
    if (!g?.ready || !g.vectorsReady || !g.vectors || !g.features) return null;
    if (model !== derived?.model) return null;
    const pass = g.index.filter(filter);
    const q = derived.features(query);
    if (g.vectors.size < EXACT_BELOW) return found(g, g.vectors.exact(q.vector, k, pass));
    // A filter that keeps few messages (a channel, a person): those few, every one scored.
    const { channelId, excludeChannelId, authorId, since, until } = filter;
    const filtered = [channelId, excludeChannelId, authorId, since, until].some(
      (v) => v !== undefined,
    );
    const few = filtered ? kept(g.vectors.size, pass) : null;
    const hits = few
      ? g.vectors.rescore(q.vector, few, k)
      : g.vectors.rescore(
          q.vector,
          g.features.candidates(
            q.keys,
            q.weights,
            Math.max(RESCORED_MIN, RESCORED_PER_HIT * k),
            pass,
          ),
          k,
        );
    return found(g, hits);
  }

  /**
   * A message into the guild's words, once, and its vector with them, or after the vectors
   * of the slots before it (`fillVectors`) while a large guild's load is placing them.
   */
  private index(g: GuildIndex, d: LexicalDoc): void {
    if (g.index.has(d.id)) return;
    g.index.add(d);
    if (!g.vectors) return;
    if (g.vectorsReady) this.place(g, d.text);
    else g.unplaced.push(d.text);
  }

  /** The vector of the next slot without one (a slot dropped meanwhile is dropped again). */
  private place(g: GuildIndex, text: string): void {
    const f = this.embedder.derived!.features(text);
    const slot = g.vectors!.add(f.vector);
    const id = g.index.doc(slot).id;
    const slotOfId = g.index.slot(id);
    if (slotOfId === undefined) g.vectors!.remove(slot);
    else if (slotOfId !== slot) throw new Error('archive words and vectors out of step');
    g.features!.add(slot, f.keys, f.weights);
  }

  /**
   * Places the vectors of the slots indexed by their words only, a few milliseconds at a
   * time, then those of the messages indexed meanwhile; from then on with their words.
   */
  private async fillVectors(g: GuildIndex): Promise<void> {
    const slice = new TimeSlice();
    while (g.unplacedFrom < g.unplaced.length) {
      if (slice.spent) await slice.next();
      if (g.evicted) return;
      const text = g.unplaced[g.unplacedFrom];
      g.unplaced[g.unplacedFrom++] = '';
      this.place(g, text);
    }
    g.unplaced = [];
    g.unplacedFrom = 0;
    g.vectorsReady = true;
  }

  private unindex(g: GuildIndex, id: string): void {
    const slot = g.index.slot(id);
    if (g.index.remove(id) && slot !== undefined) g.vectors?.remove(slot);
  }

  private guild(guildId: string): GuildIndex {
    let g = this.guilds.get(guildId);
    if (!g) {
      const derived = this.embedder.derived;
      const fresh: GuildIndex = {
        index: new LexicalIndex(),
        vectors: derived
          ? new VectorIndex(derived.vector('').length, { perVector: 0, fixed16: true })
          : null,
        features: derived ? new FeatureIndex() : null,
        unplaced: [],
        unplacedFrom: 0,
        vectorsReady: false,
        vectorsPlaced: Promise.resolve(),
        ready: false,
        finishing: false,
        loaded: Promise.resolve(),
        added: [],
        removed: new Set(),
        adding: 0,
        gone: new Set(),
        incoming: new Set(),
        lastSeq: 0,
        caughtUpAt: Date.now(),
        usedAt: 0,
        bytes: 0,
        measuredAt: 0,
        evicted: false,
      };
      fresh.loaded = outsideLane(() => this.load(guildId, fresh)).catch((e: Error) => {
        this.log.warn(`archive index of ${guildId} not loaded: ${e.message}`);
        if (this.guilds.get(guildId) === fresh) this.guilds.delete(guildId);
      });
      this.guilds.set(guildId, fresh);
      g = fresh;
    }
    return g;
  }

  /**
   * Loads the guilds `which` names (all this replica owns), the most active first, as many
   * as the budget holds: the others load on their first search.
   */
  async preload(which: (guildId: string) => boolean = () => true): Promise<void> {
    const rows = await sql(
      this.em.fork(),
      `select guild_id from memory_dossier group by guild_id order by max(last_seen_at) desc`,
    );
    let rank = 0;
    for (const r of rows) {
      const guildId = r.guild_id as string;
      if (!this.owns(guildId) || !which(guildId)) continue;
      if (this.budgetBytes > 0 && this.heldBytes() >= this.budgetBytes) break;
      const g = this.guild(guildId);
      // Not searched yet: the less active a guild, the sooner it goes.
      if (g.usedAt <= 0) g.usedAt = -++rank;
      await g.loaded;
    }
  }

  private async load(guildId: string, g: GuildIndex): Promise<void> {
    const t0 = Date.now();
    // The load's own cursor: `add` moves `g.lastSeq` past rows committed meanwhile, and
    // paging from there would skip the rows between this page and those.
    let cursor = 0;
    let next = this.page(guildId, cursor, this.pageSize);
    for (;;) {
      const rows = await next;
      g.finishing = rows.length < this.pageSize;
      // The next page is read while this one is indexed (rows come in sequence order).
      if (!g.finishing) {
        next = this.page(guildId, Number(rows[rows.length - 1].seq), this.pageSize);
        next.catch(() => undefined); // awaited on the next turn, unless evicted meanwhile
      }
      const slice = new TimeSlice();
      for (const r of rows) {
        if (slice.spent) await slice.next();
        if (g.evicted) return;
        if (!g.removed.has(r.message_id)) this.index(g, lexicalDoc(r));
        cursor = Math.max(cursor, Number(r.seq));
      }
      if (g.evicted) return;
      // Measured as it doubles: a loading guild counts against the budget too.
      if (g.index.size >= g.measuredAt * 2) {
        this.measure(g);
        this.enforceBudget(guildId);
      }
      if (rows.length < this.pageSize) break;
    }
    g.lastSeq = Math.max(g.lastSeq, cursor);
    // A small guild's vectors are placed in moments: it is ready with them. A large one's
    // words are ready first (hashing each text for its vector and features was about half
    // of the load's CPU), and its searches rank without the archive's vectors meanwhile.
    const vectorsAfter = g.index.size >= this.vectorsAfter;
    if (!vectorsAfter) await this.fillVectors(g);
    if (g.evicted) return;
    for (const d of g.added) if (!g.removed.has(d.id)) this.index(g, d);
    for (const id of g.removed) this.unindex(g, id);
    g.added = [];
    g.removed.clear();
    g.ready = true;
    g.caughtUpAt = Date.now();
    this.measure(g);
    this.log.log(
      `archive index of ${guildId}: ${g.index.size} messages, ${mb(g.bytes)} MB in ${Date.now() - t0} ms`,
    );
    this.enforceBudget(guildId);
    if (!vectorsAfter) return;
    g.vectorsPlaced = this.fillVectors(g).then(
      () => {
        if (g.evicted) return;
        this.measure(g);
        this.log.log(`archive vectors of ${guildId} placed in ${Date.now() - t0} ms`);
        this.enforceBudget(guildId);
      },
      (e: Error) => this.log.warn(`archive vectors of ${guildId} not placed: ${e.message}`),
    );
  }

  /** Settles once the guild's vectors are placed (or it is not held). */
  async vectorsPlaced(guildId: string): Promise<void> {
    const g = this.guilds.get(guildId);
    if (!g) return;
    await g.loaded;
    await g.vectorsPlaced;
  }

  /**
   * Rows committed by others since the last look: their ids first, then those it lacks
   * (not those this process's ingest is adding), indexed a few milliseconds at a time.
   */
  private async catchUp(guildId: string, g: GuildIndex): Promise<void> {
    // A full look means more rows wait behind it (a burst): look again at once.
    while ((await this.catchUpOnce(guildId, g)) && !g.evicted);
  }

  /** One look at the rows after `lastSeq` (and `LOOKBACK` before it); true when it was full. */
  private async catchUpOnce(guildId: string, g: GuildIndex): Promise<boolean> {
    const seen = await sql(
      this.em.fork(),
      `select seq, message_id from memory_message where guild_id = ? and seq > ?
       order by seq limit ?`,
      [guildId, Math.max(0, g.lastSeq - LOOKBACK), LOOKBACK * 4],
    );
    const full = seen.length === LOOKBACK * 4;
    const missing = seen
      .filter((r) => !g.index.has(r.message_id) && !g.incoming.has(r.message_id))
      .map((r) => r.message_id);
    for (const r of seen) g.lastSeq = Math.max(g.lastSeq, Number(r.seq));
    if (!missing.length) return full;
    const rows = await sql(
      this.em.fork(),
      `select seq, message_id, channel_id, author_id, author_name, content, created_at
       from memory_message where guild_id = ?
       and message_id in (select jsonb_array_elements_text(?::jsonb))`,
      [guildId, JSON.stringify(missing)],
    );
    g.adding++;
    try {
      const slice = new TimeSlice();
      for (const r of rows) {
        if (slice.spent) await slice.next();
        if (g.evicted) return false;
        const id = r.message_id as string;
        if (!g.incoming.has(id) && !g.gone.has(id)) this.index(g, lexicalDoc(r));
      }
    } finally {
      if (--g.adding === 0) {
        g.gone.clear();
        g.incoming.clear();
      }
    }
    return full;
  }

  private page(guildId: string, afterSeq: number, limit: number): Promise<Row[]> {
    return sql(
      this.em.fork(),
      `select seq, message_id, channel_id, author_id, author_name, content, created_at
       from memory_message where guild_id = ? and seq > ? order by seq limit ?`,
      [guildId, afterSeq, limit],
    );
  }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const found = (g: GuildIndex, hits: { slot: number; score: number }[]) =>
  hits.map((h) => ({ id: g.index.doc(h.slot).id, score: h.score }));

/** The slots a filter keeps, when they are fewer than `EXACT_BELOW`; null otherwise. */
function kept(slots: number, pass: (slot: number) => boolean): number[] | null {
  const out: number[] = [];
  for (let slot = 0; slot < slots; slot++) {
    if (pass(slot) && out.push(slot) >= EXACT_BELOW) return null;
  }
  return out;
}
