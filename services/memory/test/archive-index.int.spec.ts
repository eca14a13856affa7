import { createHash } from 'node:crypto';
import { EntityManager } from '@mikro-orm/postgresql';
import { snowflake } from '@dirigent/testing';
import { ArchiveIndex } from '../adapters/archive-index';
import { sql } from '../adapters/postgres/sql';
import { EMBEDDER, type Embedder } from '../application/ports';
import { MemoryHarness } from './harness';

jest.setTimeout(60_000);

/**
 * The word index of a guild loads from Postgres in pages while the service keeps
 * writing: a message committed during the load must not move the load's cursor past
 * rows it has not read yet.
 */
describe('archive index load', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await MemoryHarness.start();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('reads every page when messages are committed during the load', async () => {
    const g = h.guild();
    const channel = snowflake();
    const author = snowflake();
    for (let i = 0; i < 12; i++) await g.say(channel, author, `stored message number ${i}`);
    await h.waitForCount(g.guildId, author, 12);

    // A second index, as a restarted replica has: it loads the guild in pages of 5.
    const app = h.app!;
    const index = new ArchiveIndex(app.get(EntityManager), app.get(EMBEDDER));
    index.pageSize = 5;
    expect(await index.get(g.guildId, 0)).toBeNull(); // the first page is being read
    await index.add(g.guildId, [
      {
        seq: Number.MAX_SAFE_INTEGER,
        message_id: snowflake(),
        channel_id: channel,
        author_id: author,
        content: 'committed while the load was reading',
        created_at: new Date(),
      },
    ]);
    const loaded = await index.get(g.guildId, 30_000);
    expect(loaded?.size).toBe(13);
  });

  it('keeps a message deleted while its batch is being indexed out of the index', async () => {
    const g = h.guild();
    const author = snowflake();
    await g.say(snowflake(), author, 'the guild exists');
    await h.waitForCount(g.guildId, author, 1);
    const app = h.app!;
    const index = new ArchiveIndex(app.get(EntityManager), app.get(EMBEDDER));
    expect(await index.get(g.guildId, 30_000)).not.toBeNull();
    // A batch large enough to be indexed in several slices of the event loop.
    const base = snowflake();
    const rows = Array.from({ length: 3_000 }, (_, i) => ({
      message_id: `${base}${String(i).padStart(4, '0')}`,
      channel_id: snowflake(),
      author_id: author,
      content: `batch message ${i} about harbour ferries and tide tables`,
      created_at: new Date(),
    }));
    const added = index.add(g.guildId, rows);
    const last = rows[rows.length - 1].message_id;
    index.remove(g.guildId, [last]);
    await added;
    const words = await index.get(g.guildId, 0);
    expect(words?.has(last)).toBe(false);
    expect(words?.has(rows[0].message_id)).toBe(true);
    expect(words?.size).toBe(3_000);
  });

  it('makes a large guild searchable by its words first, its vectors following slot for slot', async () => {
    const g = h.guild();
    const author = snowflake();
    const base = BigInt(snowflake());
    await sql(
      h.app!.get(EntityManager).fork(),
      `insert into memory_message (guild_id, channel_id, message_id, author_id, content, created_at)
       select ?, ?, (?::bigint + i)::text, ?,
         'note ' || md5(i::text) || ' about the ' || (array['harbour','ferries','market'])[1 + i % 3],
         now() - (3000 - i) * interval '1 second'
       from generate_series(1, 3000) i`,
      [g.guildId, snowflake(), base.toString(), author],
    );
    const embedder = h.app!.get<Embedder>(EMBEDDER);
    const model = embedder.derived!.model;
    const index = new ArchiveIndex(h.app!.get(EntityManager), embedder);
    index.vectorsAfter = 1_000;

    const words = await index.get(g.guildId, 60_000);
    expect(words?.size).toBe(3_000);
    // Ready by its words; the vectors of 3,000 texts take many turns of the event loop.
    expect(index.report().find((r) => r.guildId === g.guildId)?.vectorsReady).toBe(false);
    expect(index.nearest(g.guildId, model, `note ${md5('42')}`, 5)).toBeNull();
    // Written and deleted while the vectors are being placed.
    const planted = snowflake();
    await index.add(g.guildId, [
      {
        message_id: planted,
        channel_id: snowflake(),
        author_id: author,
        content: 'the lighthouse keeper waved at dusk',
        created_at: new Date(),
      },
    ]);
    const gone = (base + 7n).toString();
    index.remove(g.guildId, [gone]);

    await index.vectorsPlaced(g.guildId);
    expect(index.report().find((r) => r.guildId === g.guildId)?.vectorsReady).toBe(true);
    const near = (i: number) =>
      index.nearest(g.guildId, model, `note ${md5(String(i))}`, 3)!.map((n) => n.id);
    for (const i of [1, 42, 2999, 3000]) expect(near(i)[0]).toBe((base + BigInt(i)).toString());
    expect(near(7)).not.toContain(gone);
    const lighthouse = index.nearest(g.guildId, model, 'the lighthouse keeper waved at dusk', 3);
    expect(lighthouse?.[0].id).toBe(planted);
  });
});

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
