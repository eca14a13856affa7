import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { LexicalIndex, overBudget, type LexicalFilter } from '@dirigent/memory-domain';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { EMBEDDER, type Embedder } from '../application/ports';
import { answersQueries, type MemoryConfig } from '../config';
import { TimeSlice } from '../application/time-slice';
import { ArchiveFollower, FOLLOW_MS, LOOKBACK } from './archive-follow';
import { GuildIndex } from './guild-index';
import { observeEviction, reportIndexBytes } from './metrics';
import { outsideLane } from './postgres/query-lane';
import { lexicalDoc, sql, type Row } from './postgres/sql';

/** Rows read per query while loading a guild. */
const PAGE = 10_000;
/**
 * A guild loaded with at least this many messages is ready for searches once its words are
 * indexed, its vectors following (`fillVectors`); a smaller one's load places them too.
 */
const VECTORS_AFTER = 20_000;

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
   * Whether the held guilds follow the table by themselves (memory's `queries` role, where
   * no ingest adds to them), rather than each on its searches.
   */
  private readonly follows: boolean;
  private readonly follower: ArchiveFollower;

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
    const guilds = this.guilds;
    this.follower = new ArchiveFollower(
      em,
      {
        get size() {
          return guilds.size;
        },
        held: (guildId) => this.guilds.get(guildId),
        add: (guildId, rows) => this.add(guildId, rows),
        remove: (guildId, ids) => this.remove(guildId, ids),
      },
      this.log,
      this.follows,
    );
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
    void this.follower
      .start()
      .catch((e: Error) => this.log.warn(`archive head not read: ${e.message}`))
      .then(() => this.preload())
      .catch((e: Error) => this.log.warn(`archive index not preloaded: ${e.message}`))
      .finally(() => this.preloadDone());
  }

  onApplicationShutdown(): void {
    this.follower.stop();
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

  /**
   * Messages just committed, indexed a few milliseconds at a time. A guild this process has
   * not indexed yet starts loading (its rows are in the table by now), so that its first
   * search finds the index ready.
   */
  async add(guildId: string, rows: Row[]): Promise<void> {
    // Another replica's guild, or (with a budget) one not held: its next search loads it.
    if (!this.owns(guildId) || (this.budgetBytes > 0 && !this.guilds.has(guildId))) return;
    const g = this.guild(guildId);
    for (const r of rows) {
      if (r.seq !== undefined) g.lastSeq = Math.max(g.lastSeq, Number(r.seq));
    }
    if (!g.ready) return g.addAfterLoad(rows);
    await g.addInSlices(rows, true);
    if (g.index.size > g.measuredAt * 1.25 + 1_000) g.measure();
    this.enforceBudget(guildId);
  }

  /** Messages deleted (or forgotten): gone from the index at once. */
  remove(guildId: string, messageIds: readonly string[]): void {
    this.guilds.get(guildId)?.remove(messageIds);
  }

  /** The guild's messages nearest a query of the derived model (`GuildIndex.nearest`). */
  nearest(
    guildId: string,
    model: string,
    query: string,
    k: number,
    filter: LexicalFilter = {},
  ): { id: string; score: number }[] | null {
    return this.guilds.get(guildId)?.nearest(model, query, k, filter) ?? null;
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

  /** Settles once the guild's vectors are placed (or it is not held). */
  async vectorsPlaced(guildId: string): Promise<void> {
    const g = this.guilds.get(guildId);
    if (!g) return;
    await g.loaded;
    await g.vectorsPlaced;
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

  private heldBytes(): number {
    return [...this.guilds.values()].reduce((sum, g) => sum + g.bytes, 0);
  }

  private drop(guildId: string, g: GuildIndex, why: 'budget' | 'released'): void {
    g.evicted = true;
    this.guilds.delete(guildId);
    observeEviction(why);
    this.log.log(`archive index of ${guildId} evicted (${why}, ${mb(g.bytes)} MB)`);
  }

  /** Over the budget: the least recently searched guilds go (`overBudget`), never `keep`. */
  private enforceBudget(keep: string): void {
    if (this.budgetBytes <= 0) return;
    const held = [...this.guilds].map(([id, g]) => ({ id, bytes: g.bytes, usedAt: g.usedAt }));
    for (const id of overBudget(held, this.budgetBytes, keep)) {
      this.drop(id, this.guilds.get(id)!, 'budget');
    }
  }

  /** The guild held, or a new one whose load starts now. */
  private guild(guildId: string): GuildIndex {
    let g = this.guilds.get(guildId);
    if (!g) {
      const fresh = new GuildIndex(this.embedder.derived);
      fresh.loaded = outsideLane(() => this.load(guildId, fresh)).catch((e: Error) => {
        this.log.warn(`archive index of ${guildId} not loaded: ${e.message}`);
        if (this.guilds.get(guildId) === fresh) this.guilds.delete(guildId);
      });
      this.guilds.set(guildId, fresh);
      g = fresh;
    }
    return g;
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
        if (!g.removed.has(r.message_id)) g.put(lexicalDoc(r));
        cursor = Math.max(cursor, Number(r.seq));
      }
      if (g.evicted) return;
      // Measured as it doubles: a loading guild counts against the budget too.
      if (g.index.size >= g.measuredAt * 2) {
        g.measure();
        this.enforceBudget(guildId);
      }
      if (rows.length < this.pageSize) break;
    }
    g.lastSeq = Math.max(g.lastSeq, cursor);
    // A small guild's vectors are placed in moments: it is ready with them. A large one's
    // words are ready first (hashing each text for its vector and features was about half
    // of the load's CPU), and its searches rank without the archive's vectors meanwhile.
    const vectorsAfter = g.index.size >= this.vectorsAfter;
    if (!vectorsAfter) await g.fillVectors();
    if (g.evicted) return;
    g.loadDone();
    this.log.log(
      `archive index of ${guildId}: ${g.index.size} messages, ${mb(g.bytes)} MB in ${Date.now() - t0} ms`,
    );
    this.enforceBudget(guildId);
    if (!vectorsAfter) return;
    g.vectorsPlaced = g.fillVectors().then(
      () => {
        if (g.evicted) return;
        g.measure();
        this.log.log(`archive vectors of ${guildId} placed in ${Date.now() - t0} ms`);
        this.enforceBudget(guildId);
      },
      (e: Error) => this.log.warn(`archive vectors of ${guildId} not placed: ${e.message}`),
    );
  }

  /** Starts a catch-up with the table, unless one ran in the last `FOLLOW_MS` or runs. */
  private catchUpSoon(guildId: string, g: GuildIndex): void {
    if (Date.now() - g.caughtUpAt <= FOLLOW_MS || g.catchingUp || g.evicted) return;
    g.caughtUpAt = Date.now();
    g.catchingUp = outsideLane(() => this.catchUp(guildId, g))
      .catch((e: Error) => this.log.warn(`archive index catch-up failed: ${e.message}`))
      .finally(() => (g.catchingUp = undefined));
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
    const missing = seen.filter((r) => !g.knows(r.message_id)).map((r) => r.message_id);
    for (const r of seen) g.lastSeq = Math.max(g.lastSeq, Number(r.seq));
    if (!missing.length) return full;
    const rows = await sql(
      this.em.fork(),
      `select seq, message_id, channel_id, author_id, author_name, content, created_at
       from memory_message where guild_id = ?
       and message_id in (select jsonb_array_elements_text(?::jsonb))`,
      [guildId, JSON.stringify(missing)],
    );
    await g.addInSlices(rows, false);
    return full && !g.evicted;
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
