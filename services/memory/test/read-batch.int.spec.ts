import { EntityManager } from '@mikro-orm/postgresql';
import { snowflake } from '@dirigent/testing';
import { recentRead } from '../adapters/postgres/message.repository';
import { ReadBatch } from '../adapters/postgres/read-batch';
import { MemoryHarness } from './harness';

jest.setTimeout(60_000);

/** Reads asked for together go to Postgres as one query; each gets its own rows. */
describe('read batch', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await MemoryHarness.start();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('answers each read of one batch with its own rows, and fails them all together', async () => {
    const g = h.guild();
    const [here, there, author] = [snowflake(), snowflake(), snowflake()];
    await g.say(here, author, 'said here');
    await g.say(there, author, 'said there');
    await h.waitForCount(g.guildId, author, 2);

    const em = h.app!.get(EntityManager);
    const batch = new ReadBatch(em);
    const executed = jest.spyOn(em.getConnection(), 'execute');
    const [inHere, inThere, both, lone] = await Promise.all([
      batch.run(recentRead(g.guildId, { limit: 5, channelId: here })),
      batch.run(recentRead(g.guildId, { limit: 5, channelId: there })),
      batch.run(recentRead(g.guildId, { limit: 5 })),
      batch.run({ sql: 'select ? as n', params: [7], answer: (rows) => Number(rows[0].n) }),
    ]);
    expect(executed).toHaveBeenCalledTimes(1);
    expect(inHere.map((m) => m.text)).toEqual(['said here']);
    expect(inThere.map((m) => m.text)).toEqual(['said there']);
    expect(both.map((m) => m.text)).toEqual(['said there', 'said here']);
    expect(lone).toBe(7);
    // A batch of one answers as well.
    expect(await batch.run(recentRead(g.guildId, { limit: 1 }))).toHaveLength(1);
    executed.mockRestore();

    const failed = await Promise.allSettled([
      batch.run(recentRead(g.guildId, { limit: 5 })),
      batch.run({ sql: 'select * from no_such_table', params: [], answer: (rows) => rows }),
    ]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
