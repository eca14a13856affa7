import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { SearchLayer } from '@dirigent/memory-domain';
import type { VectorStore } from '../application/ports';
import { sql } from './postgres/sql';

const vectorLiteral = (v: ArrayLike<number>) => `[${Array.from(v).join(',')}]`;

const dimension = (dim: number) => {
  if (!Number.isInteger(dim) || dim <= 0) throw new Error(`invalid vector dimension ${dim}`);
  return dim;
};

/**
 * The SQL of the pgvector adapter (`?` placeholders), apart so that a unit test checks it
 * with Postgres's own parser where the extension is missing. The query orders by the very
 * expression each HNSW index is built on, within its partial predicate, so the index serves it.
 */
export const pgvectorSql = {
  index: (dim: number) =>
    `create index if not exists memory_embedding_pgv_hnsw_${dimension(dim)} on memory_embedding_pgv
     using hnsw ((embedding::vector(${dim})) vector_cosine_ops) where dim = ${dim}`,
  /**
   * Parameters: guild id, model, then a JSON array of `{ layer, ref_id, dim, embedding }`.
   * An item embedded again (a lore item or summary rewritten) takes its new vector.
   */
  upsert: `insert into memory_embedding_pgv (guild_id, layer, ref_id, model, dim, embedding)
     select ?, x.layer, x.ref_id, ?, x.dim, x.embedding::vector
     from jsonb_to_recordset(?::jsonb) as x(layer varchar, ref_id varchar, dim integer, embedding text)
     on conflict (guild_id, layer, ref_id, model)
     do update set dim = excluded.dim, embedding = excluded.embedding`,
  /** Parameters: guild id, layer, a JSON array of ref ids. */
  remove: `delete from memory_embedding_pgv where guild_id = ? and layer = ?
     and ref_id in (select jsonb_array_elements_text(?::jsonb))`,
  /** Parameters: query vector, guild id, model, JSON array of layers, query vector, k. */
  nearest: (dim: number) =>
    `select layer, ref_id, 1 - (embedding::vector(${dimension(dim)}) <=> ?::vector(${dim})) as score
     from memory_embedding_pgv where dim = ${dim} and guild_id = ? and model = ?
     and layer in (select jsonb_array_elements_text(?::jsonb))
     order by embedding::vector(${dim}) <=> ?::vector(${dim}) limit ?`,
};

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
    await sql(this.em, pgvectorSql.index(dim));
    this.indexed.add(dim);
  }

  async upsert(guildId: string, model: string, items: Parameters<VectorStore['upsert']>[2]) {
    const usable = items.filter((it) => it.vector.length > 0);
    if (!usable.length) return;
    for (const dim of new Set(usable.map((it) => it.vector.length))) await this.ensureIndex(dim);
    await sql(this.em, pgvectorSql.upsert, [
      guildId,
      model,
      JSON.stringify(
        usable.map((it) => ({
          layer: it.layer,
          ref_id: it.refId,
          dim: it.vector.length,
          embedding: vectorLiteral(it.vector),
        })),
      ),
    ]);
  }

  async remove(guildId: string, layer: SearchLayer, refIds: string[]) {
    if (!refIds.length) return;
    await sql(this.em, pgvectorSql.remove, [guildId, layer, JSON.stringify(refIds)]);
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
    const rows = await sql(this.em, pgvectorSql.nearest(dim), [
      v,
      guildId,
      model,
      JSON.stringify(q.layers),
      v,
      q.k,
    ]);
    return rows.map((r) => ({ layer: r.layer, refId: r.ref_id, score: Number(r.score) }));
  }
}
