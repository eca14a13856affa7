import { EntityManager } from '@mikro-orm/postgresql';
import { snowflake } from '@dirigent/testing';
import { ArchiveIndex } from '../adapters/archive-index';
import { EMBEDDER } from '../application/ports';
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
});
