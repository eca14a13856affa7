import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadModule, parseSync } from 'libpg-query';
import { PgVectorStore, pgvectorSql } from './pgvector.store';

/**
 * The pgvector adapter's SQL checked with Postgres's own parser, with no database (the
 * adapter runs against real pgvector in test/vector-stores.int.spec.ts, on PGlite where the
 * machine's Postgres has none): every statement parses, the parameters match the placeholders,
 * the search orders by the expression its HNSW index is built on (within the index's
 * partial predicate), and the columns written exist in the migration's table.
 */

/** `?` placeholders (knex) as Postgres's `$n`, and the statement's parse tree. */
function parse(query: string): { tree: any; placeholders: number } {
  let n = 0;
  const text = query.replace(/\?/g, () => `$${++n}`);
  return { tree: parseSync(text).stmts[0].stmt, placeholders: n };
}

/** A parse tree without source positions, to compare expressions written in two places. */
const shape = (node: unknown): unknown =>
  JSON.parse(JSON.stringify(node, (k, v) => (k === 'location' ? undefined : v)));

/** Records what the adapter sends to the database and answers with `rows`. */
function recordingEm(rows: Record<string, unknown>[] = []) {
  const calls: { query: string; params: unknown[] }[] = [];
  const em = {
    getConnection: () => ({
      execute: async (query: string, params: unknown[] = []) => {
        calls.push({ query, params });
        return rows;
      },
    }),
    getTransactionContext: () => undefined,
  } as unknown as EntityManager;
  return { em, calls };
}

beforeAll(async () => {
  await loadModule();
});

describe('pgvector adapter SQL', () => {
  it('parses as PostgreSQL', () => {
    for (const q of [
      pgvectorSql.index(512),
      pgvectorSql.index(1536),
      pgvectorSql.upsert,
      pgvectorSql.remove,
      pgvectorSql.nearest(512),
    ]) {
      expect(() => parse(q)).not.toThrow();
    }
  });

  it('orders the search by the expression its HNSW index is built on, inside the index predicate', () => {
    const index = parse(pgvectorSql.index(768)).tree.IndexStmt;
    expect(index.accessMethod).toBe('hnsw');
    const select = parse(pgvectorSql.nearest(768)).tree.SelectStmt;
    const order = select.sortClause[0].SortBy.node.A_Expr;
    expect(order.name[0].String.sval).toBe('<=>');
    expect(shape(order.lexpr)).toEqual(shape(index.indexParams[0].IndexElem.expr));
    const conjuncts = select.whereClause.BoolExpr.args.map(shape);
    expect(conjuncts).toContainEqual(shape(index.whereClause));
    expect(select.limitCount).toBeDefined();
  });

  it('writes only columns of the table the migration creates', () => {
    const migration = readFileSync(
      join(__dirname, '../../../libs/persistence/src/migrations/Migration20261123120000_memory.ts'),
      'utf8',
    );
    const create = migration.match(
      /create table if not exists "memory_embedding_pgv" \([\s\S]*?\n\s*\);/,
    );
    expect(create).not.toBeNull();
    const table = parse(create![0]).tree.CreateStmt;
    const columns = table.tableElts
      .filter((e: any) => e.ColumnDef)
      .map((e: any) => e.ColumnDef.colname);
    const insert = parse(pgvectorSql.upsert).tree.InsertStmt;
    expect(insert.relation.relname).toBe('memory_embedding_pgv');
    const written = insert.cols.map((c: any) => c.ResTarget.name);
    expect(written).toHaveLength(6);
    for (const c of written) expect(columns).toContain(c);
  });

  it('sends as many parameters as each statement has placeholders', async () => {
    const { em, calls } = recordingEm([{ layer: 'archive', ref_id: 'a', score: '0.75' }]);
    const store = new PgVectorStore(em);
    await store.upsert('g', 'm', [
      { layer: 'archive', refId: 'a', vector: [0.6, 0.8, 0] },
      { layer: 'archive', refId: 'b', vector: [1, 0] },
    ]);
    await store.remove('g', 'archive', ['a']);
    const hits = await store.nearest('g', 'm', [0.6, 0.8, 0], { layers: ['archive'], k: 5 });
    expect(hits).toEqual([{ layer: 'archive', refId: 'a', score: 0.75 }]);
    for (const { query, params } of calls) expect(parse(query).placeholders).toBe(params.length);
    // One index per dimension in use, made once; one insert for the whole batch.
    expect(calls.filter((c) => /create index/.test(c.query))).toHaveLength(2);
    const inserts = calls.filter((c) => /^insert/.test(c.query));
    expect(inserts).toHaveLength(1);
    expect(JSON.parse(inserts[0].params[2] as string)).toEqual([
      { layer: 'archive', ref_id: 'a', dim: 3, embedding: '[0.6,0.8,0]' },
      { layer: 'archive', ref_id: 'b', dim: 2, embedding: '[1,0]' },
    ]);
  });

  it('refuses a dimension no index can have', () => {
    expect(() => pgvectorSql.index(0)).toThrow(/invalid vector dimension/);
    expect(() => pgvectorSql.nearest(1.5)).toThrow(/invalid vector dimension/);
  });
});
