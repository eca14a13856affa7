import { EntityManager } from '@mikro-orm/postgresql';
import { Subjects, type MemoryHit } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { ArchiveIndex } from '../adapters/archive-index';
import { archiveFallbackCount } from '../adapters/metrics';
import { sql } from '../adapters/postgres/sql';
import { MemoryHarness } from './harness';

jest.setTimeout(400_000);

/**
 * A replica's archive indexes under a memory budget and after a restart: the least
 * recently searched guild is evicted when a third does not fit, its searches still answer
 * (from Postgres full text) and its next search reloads it; a big guild loading does not
 * hold up another guild's search, and its own first search answers from full text.
 */
describe('archive indexes within a memory budget', () => {
  let h: MemoryHarness;
  let archive: ArchiveIndex;

  /** `n` archived messages of a guild written straight to the table, one naming `word`. */
  const seed = async (guildId: string, n: number, word: string) => {
    const base = BigInt(snowflake());
    await sql(
      h.app!.get(EntityManager).fork(),
      `insert into memory_message (guild_id, channel_id, message_id, author_id, author_name,
         content, created_at)
       select ?, ?, (?::bigint + i)::text, ?, 'Seeder',
         case when i = ? then 'the lighthouse keeper mentioned ' || ? || ' at dusk'
           else 'line ' || i || ' about the ' ||
             (array['harbour','ferries','tide tables','market','garden'])[1 + i % 5] end,
         now() - (? - i) * interval '1 second'
       from generate_series(1, ?) i`,
      [guildId, snowflake(), base.toString(), snowflake(), Math.floor(n / 2), word, n, n],
    );
  };

  const search = (guildId: string, query: string) =>
    h.ok<{ hits: MemoryHit[] }>(Subjects.memory.search, { guildId, query, k: 5 });

  beforeAll(async () => {
    h = await MemoryHarness.start();
    archive = h.app!.get(ArchiveIndex);
    // Loads in many pages, so that a big guild takes many turns of the event loop.
    archive.pageSize = 500;
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('evicts the least recently searched guild, answers it from full text and reloads it', async () => {
    const [x, y, z] = [snowflake(), snowflake(), snowflake()];
    for (const g of [x, y, z]) await seed(g, 8_000, `word${g}`);
    for (const g of [x, y, z]) expect(await archive.get(g, 120_000)).not.toBeNull();
    const sizes = archive.report().filter((r) => [x, y, z].includes(r.guildId));
    expect(sizes.every((r) => r.ready && r.messages === 8_000 && r.bytes > 0)).toBe(true);
    // Room for any two of the three, not for all three.
    const total = sizes.reduce((s, r) => s + r.bytes, 0);
    const smallest = Math.min(...sizes.map((r) => r.bytes));
    for (const g of [x, y, z]) await search(g, `word${g}`);
    archive.budgetBytes = total - smallest / 2;

    await search(z, `word${z}`);
    expect([x, y, z].map((g) => archive.state(g))).toEqual(['absent', 'ready', 'ready']);

    // x's search answers while its index is not held: from Postgres full text.
    const fallbacks = await archiveFallbackCount();
    const { hits } = await search(x, `word${x}`);
    expect(hits[0]?.text).toContain(`word${x}`);
    expect(await archiveFallbackCount()).toBe(fallbacks + 1);
    // ...and reloads it: now y is the one searched longest ago, and goes.
    await waitFor(() => archive.state(x) === 'ready', 120_000, 50, 'x to reload');
    expect([x, y, z].map((g) => archive.state(g))).toEqual(['ready', 'absent', 'ready']);
    const held = archive.report().reduce((s, r) => s + r.bytes, 0);
    expect(held).toBeLessThanOrEqual(archive.budgetBytes);
  });

  it('answers another guild while a big one loads after a restart, the big one from full text', async () => {
    archive.budgetBytes = 0;
    const [big, small] = [snowflake(), snowflake()];
    await seed(big, 12_000, `word${big}`);
    await seed(small, 50, `word${small}`);
    // A restarted replica holds no index yet.
    archive.evict(() => true);
    expect(await archive.get(big, 0)).toBeNull(); // its load starts

    const order: string[] = [];
    const answered = (g: string) => (r: { hits: MemoryHit[] }) => {
      order.push(`${g === big ? 'big' : 'small'} answered while big ${archive.state(big)}`);
      return r;
    };
    const fallbacks = await archiveFallbackCount();
    const [bigHits, smallHits] = await Promise.all([
      search(big, `word${big}`).then(answered(big)),
      search(small, `word${small}`).then(answered(small)),
    ]);
    expect(order.sort()).toEqual([
      'big answered while big loading',
      'small answered while big loading',
    ]);
    expect(bigHits.hits[0]?.text).toContain(`word${big}`);
    expect(smallHits.hits[0]?.text).toContain(`word${small}`);
    expect(await archiveFallbackCount()).toBeGreaterThan(fallbacks);

    // Ready in time, and then answered from its index.
    await waitFor(() => archive.state(big) === 'ready', 380_000, 50, 'the big guild to load');
    const before = await archiveFallbackCount();
    expect((await search(big, `word${big}`)).hits[0]?.text).toContain(`word${big}`);
    expect(await archiveFallbackCount()).toBe(before);
  });
});
