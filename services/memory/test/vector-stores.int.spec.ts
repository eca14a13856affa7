import { RequestContext } from '@mikro-orm/core';
import { MikroORM } from '@mikro-orm/postgresql';
import { hashedEmbedding, HASHED_EMBEDDER_DIMENSIONS } from '@dirigent/memory-domain';
import { ormConfig } from '@dirigent/persistence';
import {
  freePort,
  snowflake,
  spawnNode,
  testDatabaseUrl,
  waitFor,
  type Spawned,
} from '@dirigent/testing';
import type { VectorStore } from '../application/ports';
import { ArrayVectorStore, EmbeddingRepository } from '../adapters/postgres/embedding.repository';
import { MemoryEmbedding } from '../adapters/postgres/embedding.entity';
import { memoryEntities } from '../adapters/postgres/entities';
import { pgvectorAvailable, pgvectorSql, PgVectorStore } from '../adapters/pgvector.store';
import { sql } from '../adapters/postgres/sql';

const v = (t: string) => hashedEmbedding(t);
const cosine = (a: number[], b: number[]) => {
  const dot = (x: number[], y: number[]) => x.reduce((sum, xi, i) => sum + xi * y[i], 0);
  return dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b));
};

/**
 * A first load waits as long as it takes here: the contract's 50 ms (then an answer without
 * vectors) is for a guild of 100,000 vectors, not for a test on a busy machine.
 */
const loaded = { firstLoadWaitMs: 10_000 };

/** The contract both adapters keep: nearest by cosine, per guild and model, deletions gone. */
async function behavesAsAVectorStore(orm: MikroORM, store: VectorStore, replica?: VectorStore) {
  const inContext = <T>(fn: () => Promise<T>) => RequestContext.create(orm.em, fn);
  const guild = snowflake();
  const other = snowflake();
  await inContext(async () => {
    await store.upsert(guild, 'm1', [
      { layer: 'archive', refId: 'a', vector: v('the kubernetes cluster ran out of memory') },
      { layer: 'archive', refId: 'b', vector: v('sourdough starter needs feeding') },
      { layer: 'highlights', refId: 'h', vector: v('kubernetes memory limits again') },
    ]);
    await store.upsert(other, 'm1', [
      { layer: 'archive', refId: 'x', vector: v('kubernetes memory of another guild') },
    ]);
    await store.upsert(guild, 'm2', [{ layer: 'archive', refId: 'y', vector: v('kubernetes') }]);
  });
  const q = v('kubernetes memory');
  const all = await inContext(() =>
    store.nearest(guild, 'm1', q, { layers: ['archive', 'highlights'], k: 10, ...loaded }),
  );
  expect(
    all
      .map((n) => n.refId)
      .slice(0, 2)
      .sort(),
  ).toEqual(['a', 'h']);
  expect(all.map((n) => n.refId)).not.toContain('x');
  expect(all.map((n) => n.refId)).not.toContain('y');
  expect(all[0].score).toBeGreaterThan(all[all.length - 1].score);
  const archiveOnly = await inContext(() =>
    store.nearest(guild, 'm1', q, { layers: ['archive'], k: 1, ...loaded }),
  );
  expect(archiveOnly).toEqual([{ layer: 'archive', refId: 'a', score: expect.any(Number) }]);
  await inContext(() => store.remove(guild, 'archive', ['a']));
  const after = await inContext(() =>
    store.nearest(guild, 'm1', q, { layers: ['archive'], k: 10, ...loaded }),
  );
  expect(after.map((n) => n.refId)).toEqual(['b']);
  // An item embedded again (a lore item rewritten) is found by its new text, not its old,
  // here and (reading the table again) in a replica that had loaded the old one.
  const lore = v('the guild calls every outage a sourdough moment');
  await inContext(() => store.upsert(guild, 'm1', [{ layer: 'lore', refId: 'l', vector: lore }]));
  const ask = (s: VectorStore, vector: number[]) =>
    inContext(() => s.nearest(guild, 'm1', vector, { layers: ['lore'], k: 1, ...loaded }));
  if (replica) expect((await ask(replica, lore))[0].score).toBeCloseTo(1, 4);
  const rewritten = v('kubernetes memory is the guild running joke');
  await inContext(() =>
    store.upsert(guild, 'm1', [{ layer: 'lore', refId: 'l', vector: rewritten }]),
  );
  for (const s of replica ? [store, replica] : [store]) {
    await waitFor(
      async () => Math.abs((await ask(s, rewritten))[0].score - 1) < 1e-4,
      5_000,
      100,
      'the rewritten vector',
    );
    const [byOld] = await ask(s, lore);
    expect(byOld.refId).toBe('l');
    expect(byOld.score).toBeCloseTo(cosine(lore, rewritten), 4);
  }
}

describe('vector stores on the machine’s Postgres', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await MikroORM.init(ormConfig(testDatabaseUrl(), memoryEntities));
  });
  afterAll(async () => {
    await orm?.close(true);
  });

  it('real[] scored in process', async () => {
    const rows = orm.em.getRepository(MemoryEmbedding) as unknown as EmbeddingRepository;
    await behavesAsAVectorStore(orm, new ArrayVectorStore(rows), new ArrayVectorStore(rows));
  });

  it('real[]: a vector stored while the first load reads is found by the next search', async () => {
    const rows = orm.em.getRepository(MemoryEmbedding) as unknown as EmbeddingRepository;
    // The load reads the table at once and answers only when the test says: what a load
    // that read before a batch's transaction committed sees.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const gated = Object.assign(Object.create(rows) as EmbeddingRepository, {
      unseen: async (...args: Parameters<EmbeddingRepository['unseen']>) => {
        const read = await rows.unseen(...args);
        await gate;
        return read;
      },
    });
    const store = new ArrayVectorStore(gated);
    const guild = snowflake();
    const bees = v('I keep bees on the roof of our apartment');
    const ask = (firstLoadWaitMs: number) =>
      RequestContext.create(orm.em, () =>
        store.nearest(guild, 'm1', bees, { layers: ['archive'], k: 5, firstLoadWaitMs }),
      );
    expect(await ask(0)).toEqual([]); // starts the load
    await RequestContext.create(orm.em, () =>
      store.upsert(guild, 'm1', [{ layer: 'archive', refId: 'bees', vector: bees }]),
    );
    release();
    expect((await ask(5_000)).map((h) => h.refId)).toEqual(['bees']);
  });

  it('pgvector with HNSW where the server has the extension (else its absence is real)', async () => {
    const em = orm.em.fork();
    if (await pgvectorAvailable(em)) {
      await behavesAsAVectorStore(orm, new PgVectorStore(orm.em));
    } else {
      // The migration skips the pgvector table only when the server cannot load the extension.
      const available = await sql(
        em,
        `select 1 from pg_available_extensions where name = 'vector'`,
      );
      expect(available).toEqual([]);
    }
  });
});

/**
 * Real pgvector wherever the tests run: PGlite (Postgres compiled to WebAssembly) with its
 * pgvector build, served on a loopback port over the wire protocol by pglite-socket's
 * `pglite-server`, so the same driver, ORM and migrations run against it. It is a child
 * process (PGlite loads its extensions by dynamic import, which Jest's sandbox refuses) and
 * serves one connection at a time, hence a pool of one.
 */
describe('pgvector store on PGlite with pgvector', () => {
  let server: Spawned;
  let orm: MikroORM;
  beforeAll(async () => {
    const port = await freePort();
    server = spawnNode('node_modules/@electric-sql/pglite-socket/dist/scripts/server.js', {}, [
      `--port=${port}`,
      '--extensions=@electric-sql/pglite-pgvector:vector,pg_trgm',
    ]);
    await server.waitForLine(
      `PGLiteSocketServer listening on {"port":${port},"host":"127.0.0.1"}`,
      60_000,
    );
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    orm = await MikroORM.init({ ...ormConfig(url, memoryEntities), pool: { min: 0, max: 1 } });
    await orm.getMigrator().up();
  });
  afterAll(async () => {
    await orm?.close(true);
    await server?.kill();
  });

  it('the project’s migrations create the pgvector table there', async () => {
    expect(await pgvectorAvailable(orm.em.fork())).toBe(true);
  });

  it('keeps the vector store contract', async () => {
    await behavesAsAVectorStore(orm, new PgVectorStore(orm.em));
  });

  it('serves the nearest query from the HNSW index of its dimension', async () => {
    const dim = HASHED_EMBEDDER_DIMENSIONS;
    const guild = snowflake();
    const words = ['kubernetes', 'sourdough', 'violin', 'glacier', 'compiler', 'saturn', 'pasta'];
    const items = Array.from({ length: 100 }, (_, i) => ({
      layer: 'archive' as const,
      refId: `r${i}`,
      vector: v(`${words[i % 7]} ${words[(i * 3 + 1) % 7]} note ${1000 + i}`),
    }));
    await RequestContext.create(orm.em, () => new PgVectorStore(orm.em).upsert(guild, 'm1', items));
    const [index] = await sql(
      orm.em.fork(),
      `select indexdef from pg_indexes where tablename = 'memory_embedding_pgv' and indexname = ?`,
      [`memory_embedding_pgv_hnsw_${dim}`],
    );
    expect(index?.indexdef).toMatch(/USING hnsw .*vector_cosine_ops\) WHERE \(dim = 512\)$/);
    const target = items[42].vector;
    const { plan, hits } = await orm.em.fork().transactional(async (tem) => {
      await sql(tem, 'analyze memory_embedding_pgv');
      // A few hundred rows are cheaper to sort than to search; with sorting and sequential
      // scans ruled out, only an index that yields rows in distance order can answer.
      await sql(tem, 'set local enable_seqscan = off');
      await sql(tem, 'set local enable_sort = off');
      const q = `[${target.join(',')}]`;
      const explain = await sql(tem, `explain ${pgvectorSql.nearest(dim)}`, [
        q,
        guild,
        'm1',
        JSON.stringify(['archive']),
        q,
        5,
      ]);
      return {
        plan: explain.map((r) => r['QUERY PLAN']).join('\n'),
        hits: await new PgVectorStore(tem).nearest(guild, 'm1', target, {
          layers: ['archive'],
          k: 5,
        }),
      };
    });
    expect(plan).toMatch(new RegExp(`Index Scan using memory_embedding_pgv_hnsw_${dim} `));
    expect(plan).not.toMatch(/\bSort\b/);
    expect(hits).toHaveLength(5);
    expect(hits[0]).toEqual({ layer: 'archive', refId: 'r42', score: expect.any(Number) });
    expect(hits[0].score).toBeCloseTo(1, 5);
  });
});
