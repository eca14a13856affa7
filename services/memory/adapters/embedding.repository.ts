import { Injectable } from '@nestjs/common';
import { EntityRepository } from '@mikro-orm/postgresql';
import type { SearchLayer } from '@dirigent/memory-domain';
import type { VectorStore } from '../application/ports';
import type { MemoryEmbedding } from './entities';
import { realArray, sql } from './sql';

/** Rows of `memory_embedding` (`real[]`). */
export class EmbeddingRepository extends EntityRepository<MemoryEmbedding> {
  async store(
    guildId: string,
    model: string,
    items: { layer: string; refId: string; vector: number[] }[],
  ): Promise<void> {
    for (const it of items) {
      await sql(
        this.em,
        `insert into memory_embedding (guild_id, layer, ref_id, model, vector) values (?, ?, ?, ?, ?::real[])
         on conflict (guild_id, layer, ref_id, model) do nothing`,
        [guildId, it.layer, it.refId, model, realArray(it.vector)],
      );
    }
  }

  async remove(guildId: string, layer: string, refIds: string[]): Promise<void> {
    await sql(
      this.em,
      `delete from memory_embedding where guild_id = ? and layer = ?
       and ref_id in (select jsonb_array_elements_text(?::jsonb))`,
      [guildId, layer, JSON.stringify(refIds)],
    );
  }

  after(guildId: string, model: string, seq: string) {
    return sql<{ seq: string; layer: SearchLayer; ref_id: string; vector: number[] }>(
      this.em,
      `select seq, layer, ref_id, vector from memory_embedding
       where guild_id = ? and model = ? and seq > ? order by seq limit 20000`,
      [guildId, model, seq],
    );
  }
}

interface Slot {
  lastSeq: string;
  layers: SearchLayer[];
  refIds: string[];
  vectors: Float32Array[];
  removed: Set<string>;
}

/**
 * Vectors in a `real[]` column, scored in this process: each guild's vectors are loaded
 * once and then followed by sequence number, so a search reads only what is new. Deletions
 * by this process drop out at once; those by another replica are filtered when the hits
 * are read back from their tables.
 */
@Injectable()
export class ArrayVectorStore implements VectorStore {
  readonly kind = 'array' as const;
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly rows: EmbeddingRepository) {}

  private repo() {
    return this.rows;
  }

  async upsert(guildId: string, model: string, items: Parameters<VectorStore['upsert']>[2]) {
    if (items.length) await this.repo().store(guildId, model, items);
  }

  async remove(guildId: string, layer: SearchLayer, refIds: string[]) {
    if (!refIds.length) return;
    await this.repo().remove(guildId, layer, refIds);
    for (const [key, slot] of this.slots) {
      if (key.startsWith(`${guildId}|`)) for (const r of refIds) slot.removed.add(`${layer}:${r}`);
    }
  }

  async nearest(
    guildId: string,
    model: string,
    vector: number[],
    q: { layers: readonly SearchLayer[]; k: number },
  ) {
    const key = `${guildId}|${model}`;
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { lastSeq: '0', layers: [], refIds: [], vectors: [], removed: new Set() };
      this.slots.set(key, slot);
    }
    for (;;) {
      const rows = await this.repo().after(guildId, model, slot.lastSeq);
      for (const r of rows) {
        slot.layers.push(r.layer);
        slot.refIds.push(r.ref_id);
        slot.vectors.push(Float32Array.from(r.vector));
        slot.lastSeq = String(r.seq);
      }
      if (rows.length < 20000) break;
    }
    const qv = Float32Array.from(vector);
    const wanted = new Set(q.layers);
    const top: { i: number; score: number }[] = [];
    for (let i = 0; i < slot.vectors.length; i++) {
      if (!wanted.has(slot.layers[i])) continue;
      const v = slot.vectors[i];
      if (v.length !== qv.length) continue;
      let dot = 0;
      for (let d = 0; d < v.length; d++) dot += v[d] * qv[d];
      if (top.length < q.k || dot > top[top.length - 1].score) {
        if (slot.removed.size && slot.removed.has(`${slot.layers[i]}:${slot.refIds[i]}`)) continue;
        top.push({ i, score: dot });
        top.sort((a, b) => b.score - a.score);
        if (top.length > q.k) top.pop();
      }
    }
    return top.map((t) => ({ layer: slot.layers[t.i], refId: slot.refIds[t.i], score: t.score }));
  }
}
