import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { SearchLayer } from '@dirigent/memory-domain';
import type { VectorStore } from '../application/ports';
import { sql } from './sql';

const vectorLiteral = (v: number[]) => `[${v.join(',')}]`;

/** Whether the database has pgvector and the migration made its table. */
export async function pgvectorAvailable(em: EntityManager): Promise<boolean> {
  const rows = await sql(
    em,
    `select 1 from pg_extension e, information_schema.tables t
     where e.extname = 'vector' and t.table_name = 'memory_embedding_pgv'`,
  );
  return rows.length > 0;
}

/**
 * Vectors in pgvector, nearest by an HNSW index (cosine). The column has no fixed
 * dimension, so each dimension in use gets its own partial expression index, made on first
 * use (pgvector's documented way to index vectors of several sizes).
 */
@Injectable()
export class PgVectorStore implements VectorStore {
  readonly kind = 'pgvector' as const;
  private readonly indexed = new Set<number>();

  constructor(private readonly em: EntityManager) {}

  private async ensureIndex(dim: number): Promise<void> {
    if (this.indexed.has(dim) || !Number.isInteger(dim) || dim <= 0) return;
    await sql(
      this.em,
      `create index if not exists memory_embedding_pgv_hnsw_${dim} on memory_embedding_pgv
       using hnsw ((embedding::vector(${dim})) vector_cosine_ops) where dim = ${dim}`,
    );
    this.indexed.add(dim);
  }

  async upsert(guildId: string, model: string, items: Parameters<VectorStore['upsert']>[2]) {
    for (const it of items) {
      await this.ensureIndex(it.vector.length);
      await sql(
        this.em,
        `insert into memory_embedding_pgv (guild_id, layer, ref_id, model, dim, embedding)
         values (?, ?, ?, ?, ?, ?::vector) on conflict do nothing`,
        [guildId, it.layer, it.refId, model, it.vector.length, vectorLiteral(it.vector)],
      );
    }
  }

  async remove(guildId: string, layer: SearchLayer, refIds: string[]) {
    if (!refIds.length) return;
    await sql(
      this.em,
      `delete from memory_embedding_pgv where guild_id = ? and layer = ?
       and ref_id in (select jsonb_array_elements_text(?::jsonb))`,
      [guildId, layer, JSON.stringify(refIds)],
    );
  }

  async nearest(
    guildId: string,
    model: string,
    vector: number[],
    q: { layers: readonly SearchLayer[]; k: number },
  ) {
    const dim = vector.length;
    if (!Number.isInteger(dim) || dim <= 0) return [];
    await this.ensureIndex(dim);
    const v = vectorLiteral(vector);
    const rows = await sql(
      this.em,
      `select layer, ref_id, 1 - (embedding::vector(${dim}) <=> ?::vector(${dim})) as score
       from memory_embedding_pgv where dim = ${dim} and guild_id = ? and model = ?
       and layer in (select jsonb_array_elements_text(?::jsonb))
       order by embedding::vector(${dim}) <=> ?::vector(${dim}) limit ?`,
      [v, guildId, model, JSON.stringify(q.layers), v, q.k],
    );
    return rows.map((r) => ({ layer: r.layer, refId: r.ref_id, score: Number(r.score) }));
  }
}
