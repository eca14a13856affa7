import { RequestContext } from '@mikro-orm/core';
import { MikroORM } from '@mikro-orm/postgresql';
import { hashedEmbedding } from '@dirigent/memory-domain';
import { ormConfig } from '@dirigent/persistence';
import { snowflake, testDatabaseUrl } from '@dirigent/testing';
import type { VectorStore } from '../application/ports';
import { ArrayVectorStore, EmbeddingRepository } from '../adapters/embedding.repository';
import { MemoryEmbedding, memoryEntities } from '../adapters/entities';
import { pgvectorAvailable, PgVectorStore } from '../adapters/pgvector.store';

let orm: MikroORM;
let hasPgvector = false;
beforeAll(async () => {
  orm = await MikroORM.init(ormConfig(testDatabaseUrl(), memoryEntities));
  hasPgvector = await pgvectorAvailable(orm.em.fork());
});
afterAll(async () => {
  await orm?.close(true);
});

const inContext = <T>(fn: () => Promise<T>) => RequestContext.create(orm.em, fn);

/** The contract both adapters keep: nearest by cosine, per guild and model, deletions gone. */
async function behavesAsAVectorStore(store: VectorStore) {
  const guild = snowflake();
  const other = snowflake();
  const v = (t: string) => hashedEmbedding(t);
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
    store.nearest(guild, 'm1', q, { layers: ['archive', 'highlights'], k: 10 }),
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
    store.nearest(guild, 'm1', q, { layers: ['archive'], k: 1 }),
  );
  expect(archiveOnly).toEqual([{ layer: 'archive', refId: 'a', score: expect.any(Number) }]);
  await inContext(() => store.remove(guild, 'archive', ['a']));
  const after = await inContext(() =>
    store.nearest(guild, 'm1', q, { layers: ['archive'], k: 10 }),
  );
  expect(after.map((n) => n.refId)).toEqual(['b']);
}

describe('vector stores', () => {
  it('real[] scored in process', async () => {
    const rows = orm.em.getRepository(MemoryEmbedding) as unknown as EmbeddingRepository;
    await behavesAsAVectorStore(new ArrayVectorStore(rows));
  });

  it('pgvector with HNSW (where the extension is installed; this machine has none)', async () => {
    if (!hasPgvector) {
      console.warn('pgvector is not installed here: the pgvector adapter was not exercised');
      return;
    }
    await behavesAsAVectorStore(new PgVectorStore(orm.em));
  });
});
