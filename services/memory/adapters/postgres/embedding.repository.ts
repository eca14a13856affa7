import { Injectable, Logger, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { EntityRepository } from '@mikro-orm/postgresql';
import { VectorIndex, type SearchLayer } from '@dirigent/memory-domain';
import { ArchiveIndex } from '../archive-index';
import type { VectorStore } from '../../application/ports';
import type { MemoryEmbedding } from './embedding.entity';
import { TimeSlice } from '../../application/time-slice';
import { outsideLane } from './query-lane';
import { realArray, sql } from './sql';

/** Rows of `memory_embedding` (`real[]`). */
export class EmbeddingRepository extends EntityRepository<MemoryEmbedding> {
  /**
   * Inserts vectors; an item whose vector changed (a lore item or summary rewritten) takes
   * the new one under a new sequence number, so that every replica's refresh reads it again.
   */
  async store(
    guildId: string,
    model: string,
    items: { layer: string; refId: string; vector: number[] }[],
  ): Promise<{ seq: string; layer: SearchLayer; ref_id: string }[]> {
    if (!items.length) return [];
    // Each vector's text a few milliseconds at a time (512 floats formatted one by one).
    const rows: { layer: string; ref_id: string; vector: string }[] = [];
    const slice = new TimeSlice();
    for (const it of items) {
      if (slice.spent) await slice.next();
      rows.push({ layer: it.layer, ref_id: it.refId, vector: realArray(it.vector) });
    }
    return sql(
      this.em,
      `insert into memory_embedding (guild_id, layer, ref_id, model, vector)
       select ?, x.layer, x.ref_id, ?, x.vector::real[]
       from jsonb_to_recordset(?::jsonb) as x(layer varchar, ref_id varchar, vector text)
       on conflict (guild_id, layer, ref_id, model) do update
         set vector = excluded.vector, seq = nextval(pg_get_serial_sequence('memory_embedding', 'seq'))
         where memory_embedding.vector is distinct from excluded.vector
       returning seq, layer, ref_id`,
      [guildId, model, JSON.stringify(rows)],
    );
  }

  /** The guilds that have vectors, the most recently active first, with their models. */
  async guildModels(): Promise<{ guildId: string; model: string }[]> {
    const guilds = await sql(
      this.em,
      `select guild_id from memory_dossier group by guild_id order by max(last_seen_at) desc`,
    );
    const out: { guildId: string; model: string }[] = [];
    for (const { guild_id: guildId } of guilds) {
      // The guild's distinct models by a skip scan of (guild_id, model, seq).
      const models = await sql(
        this.em,
        `with recursive m(model) as (
           (select model from memory_embedding where guild_id = ? order by model limit 1)
           union all
           select (select e.model from memory_embedding e
                   where e.guild_id = ? and e.model > m.model order by e.model limit 1)
           from m where m.model is not null)
         select model from m where model is not null`,
        [guildId, guildId],
      );
      for (const { model } of models) out.push({ guildId, model });
    }
    return out;
  }

  async remove(guildId: string, layer: string, refIds: string[]): Promise<void> {
    await sql(
      this.em,
      `delete from memory_embedding where guild_id = ? and layer = ?
       and ref_id in (select jsonb_array_elements_text(?::jsonb))`,
      [guildId, layer, JSON.stringify(refIds)],
    );
  }

  /**
   * Rows after `floor` (by sequence number) not among `known`: the new ones, and those a
   * slower transaction committed after rows with higher numbers were read.
   */
  async unseen(guildId: string, model: string, floor: number, known: number[], limit: number) {
    const rows = await sql<{ seq: string; layer: SearchLayer; ref_id: string; vector: Buffer }>(
      this.em,
      // Binary (array_send): parsing 100,000 × 512 floats from text takes the driver minutes.
      `select seq, layer, ref_id, array_send(vector) as vector from memory_embedding
       where guild_id = ? and model = ? and seq > ?
       and seq not in (select jsonb_array_elements_text(?::jsonb)::bigint)
       order by seq limit ?`,
      [guildId, model, floor, JSON.stringify(known), limit],
    );
    return rows;
  }
}

/** A one-dimensional `real[]` from Postgres's binary array format (`array_send`). */
export function float4Array(b: Buffer): Float32Array {
  const dims = b.readInt32BE(0);
  if (dims === 0) return new Float32Array(0);
  if (dims !== 1) throw new Error(`expected a one-dimensional array, got ${dims} dimensions`);
  const n = b.readInt32BE(12);
  const out = new Float32Array(n);
  let o = 20;
  for (let i = 0; i < n; i++) {
    const len = b.readInt32BE(o);
    o += 4;
    if (len === 4) out[i] = b.readFloatBE(o);
    if (len > 0) o += len;
  }
  return out;
}

/** One layer's vectors of one guild and model, and which item each slot holds. */
interface LayerIndex {
  index: VectorIndex;
  refIds: string[];
  slots: Map<string, number>;
  /** The sequence number of each item's row as placed. */
  seqs: Map<string, number>;
}

interface Slot {
  /** The highest sequence number loaded. */
  lastSeq: number;
  /** Sequence numbers loaded within LOOKBACK of lastSeq. */
  recent: number[];
  layers: Map<SearchLayer, LayerIndex>;
  loading?: Promise<void>;
  /** Set once the first load finished: until then a search goes on without vectors. */
  loaded?: boolean;
  /** When the last refresh started. */
  refreshedAt: number;
  /**
   * Vectors this process stored before the first load finished, placed once it has: the
   * load may have read the table before their transaction committed.
   */
  early: { seq: number; layer: SearchLayer; refId: string; vector: Float32Array }[];
}

/** Rows read per query while catching up. */
const PAGE = 5_000;
/**
 * How far behind the newest row a late commit is still picked up: writers commit out of
 * sequence order (concurrent batches), so each refresh looks this many numbers back.
 */
const LOOKBACK = 2_000;
/**
 * How long a search waits for a guild's first vector load (seconds at 100,000 vectors)
 * before answering without vectors, unless it says; the load goes on, and later searches
 * use it.
 */
const FIRST_LOAD_WAIT_MS = 50;
/** How often a search looks for vectors written by other replicas. */
const REFRESH_MS = 1_000;

/**
 * Vectors in a `real[]` column, searched in this process: each guild's vectors are loaded
 * once into a {@link VectorIndex} per layer (inverted lists over each vector's strongest
 * coordinates, candidates scored exactly), then followed by sequence number, so a search
 * reads only what is new and scores a few thousand vectors, not all of them. Deletions by
 * this process drop out at once; those by another replica are filtered when the hits are
 * read back from their tables.
 */
@Injectable()
export class ArrayVectorStore implements VectorStore, OnApplicationBootstrap {
  readonly kind = 'array' as const;
  private readonly slots = new Map<string, Slot>();
  private readonly log = new Logger('memory:vectors');
  private preloading = false;
  private storeOnly = false;

  constructor(
    private readonly rows: EmbeddingRepository,
    // The archive's word index, whose start-up load vectors wait for (none: no wait).
    @Optional() private readonly words?: ArchiveIndex,
  ) {}

  /** Asks for every guild's vectors to be loaded in the background once the service is up. */
  preloadOnStart(): void {
    this.preloading = true;
  }

  /**
   * Writes and deletes rows without holding any guild's vectors (a replica that answers no
   * search: memory's `jobs` role); the replicas that search read them within a second.
   */
  keepNone(): void {
    this.storeOnly = true;
  }

  onApplicationBootstrap(): void {
    if (!this.preloading) return;
    void this.preload().catch((e: Error) => this.log.warn(`vectors not preloaded: ${e.message}`));
  }

  /**
   * Loads the guilds' vectors one after the other (the most recently active first), so
   * that the searches after a restart find them loaded rather than starting the load.
   */
  private async preload(): Promise<void> {
    for (const { guildId, model } of await this.rows.guildModels()) {
      const t0 = Date.now();
      const s = this.slot(`${guildId}|${model}`);
      await this.start(guildId, model, s).catch(() => undefined);
      this.log.log(`vectors of ${guildId} (${model}) loaded in ${Date.now() - t0} ms`);
    }
  }

  /**
   * The slot's refresh under way, or a new one. A slot's first load waits for the archive's
   * word index to finish loading at start: both at once took each several times longer
   * (17 s instead of 3.5 s for the words of 100,000 messages), and searches meanwhile rank
   * by words alone.
   */
  private start(guildId: string, model: string, s: Slot): Promise<void> {
    if (!s.loading) {
      s.refreshedAt = Date.now();
      const after = s.loaded || !this.words ? Promise.resolve() : this.words.preloaded;
      s.loading = outsideLane(() =>
        after
          .then(() => this.refresh(guildId, model, s))
          .then(() => {
            for (const e of s.early.splice(0)) this.place(s, e.seq, e.layer, e.refId, e.vector);
            s.loaded = true;
          })
          .finally(() => (s.loading = undefined)),
      );
    }
    return s.loading;
  }

  /**
   * Stores vectors; a loaded slot takes them at once (by the sequence numbers the insert
   * returns, so the next refresh does not read them back). Inside a transaction that
   * later rolls back, the slot keeps vectors whose rows are gone: their hits are dropped
   * when read back from the tables, as another replica's deletions are. A slot not loaded
   * yet starts loading (a guild's first messages) and places them once it is loaded.
   */
  async upsert(guildId: string, model: string, items: Parameters<VectorStore['upsert']>[2]) {
    if (!items.length) return;
    if (this.storeOnly) return void (await this.rows.store(guildId, model, items));
    const s = this.slot(`${guildId}|${model}`);
    const stored = await this.rows.store(guildId, model, items);
    const vectors = new Map(items.map((it) => [`${it.layer}|${it.refId}`, it.vector]));
    const placed = stored.map((r) => ({
      seq: Number(r.seq),
      layer: r.layer,
      refId: r.ref_id,
      vector: Float32Array.from(vectors.get(`${r.layer}|${r.ref_id}`) ?? []),
    }));
    if (!s.loaded) {
      s.early.push(...placed);
      void this.start(guildId, model, s).catch(() => undefined);
      return;
    }
    for (const p of placed) this.place(s, p.seq, p.layer, p.refId, p.vector);
  }

  async remove(guildId: string, layer: SearchLayer, refIds: string[]) {
    if (!refIds.length) return;
    await this.rows.remove(guildId, layer, refIds);
    const gone = new Set(refIds);
    for (const [key, slot] of this.slots) {
      if (!key.startsWith(`${guildId}|`)) continue;
      slot.early = slot.early.filter((e) => e.layer !== layer || !gone.has(e.refId));
      const l = slot.layers.get(layer);
      if (!l) continue;
      for (const r of refIds) {
        const at = l.slots.get(r);
        if (at === undefined) continue;
        l.index.remove(at);
        l.slots.delete(r);
        l.seqs.delete(r);
      }
    }
  }

  async nearest(
    guildId: string,
    model: string,
    vector: number[],
    q: Parameters<VectorStore['nearest']>[3],
  ) {
    const key = `${guildId}|${model}`;
    const slot = this.slot(key);
    // One refresh at a time per slot; concurrent searches share it. A slot takes this
    // process's writes as they are stored (those made while it first loaded once it has),
    // so it is refreshed once a second, for other replicas' rows. A search does not wait
    // for a loaded slot's refresh (a round trip): other replicas' rows were a second late
    // already, and reach the next search.
    const s = slot;
    const due = !s.loaded || Date.now() - s.refreshedAt >= REFRESH_MS;
    if (due) void this.start(guildId, model, s).catch(() => undefined);
    if (!s.loaded) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>(
        (resolve) => (timer = setTimeout(resolve, q.firstLoadWaitMs ?? FIRST_LOAD_WAIT_MS)),
      );
      await Promise.race([s.loading?.catch(() => undefined), waited]);
      clearTimeout(timer);
      if (!s.loaded) return [];
    }
    const qv = Float32Array.from(vector);
    const hits: { layer: SearchLayer; refId: string; score: number }[] = [];
    for (const layer of new Set(q.layers)) {
      const l = slot.layers.get(layer);
      if (!l || l.index.dimensions !== qv.length) continue;
      for (const h of l.index.search(qv, q.k)) {
        hits.push({ layer, refId: l.refIds[h.slot], score: h.score });
      }
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, q.k);
  }

  private slot(key: string): Slot {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = {
        lastSeq: 0,
        recent: [],
        layers: new Map(),
        refreshedAt: 0,
        early: [],
      };
      this.slots.set(key, slot);
    }
    return slot;
  }

  /** One stored vector into its layer's index (once per item). */
  private place(
    s: Slot,
    seq: number,
    layer: SearchLayer,
    refId: string,
    vector: ArrayLike<number>,
  ): void {
    s.recent.push(seq);
    s.lastSeq = Math.max(s.lastSeq, seq);
    if (!vector.length) return;
    let l = s.layers.get(layer);
    if (!l) {
      l = {
        index: new VectorIndex(vector.length),
        refIds: [],
        slots: new Map(),
        seqs: new Map(),
      };
      s.layers.set(layer, l);
    }
    if (vector.length !== l.index.dimensions) return;
    const was = l.slots.get(refId);
    if (was !== undefined) {
      // The same row read again, or the item stored anew (another vector, a new number).
      if (l.seqs.get(refId) === seq) return;
      l.index.remove(was);
    }
    const at = l.index.add(vector);
    l.seqs.set(refId, seq);
    l.refIds[at] = refId;
    l.slots.set(refId, at);
  }

  private async refresh(guildId: string, model: string, slot: Slot): Promise<void> {
    for (;;) {
      const floor = Math.max(0, slot.lastSeq - LOOKBACK);
      slot.recent = slot.recent.filter((s) => s > floor);
      const rows = await this.rows.unseen(guildId, model, floor, slot.recent, PAGE);
      const slice = new TimeSlice();
      for (const r of rows) {
        if (slice.spent) await slice.next();
        this.place(slot, Number(r.seq), r.layer, r.ref_id, float4Array(r.vector));
      }
      if (rows.length < PAGE) return;
    }
  }
}
