import { EntityManager } from '@mikro-orm/postgresql';
import { snowflake } from '@dirigent/testing';
import { PhraseStore } from '../adapters/postgres/phrase.store';
import { sql } from '../adapters/postgres/sql';
import { MemoryHarness } from './harness';

jest.setTimeout(90_000);

/**
 * `memory_phrase` under concurrent writers: the moment batches of several channels of one
 * guild record overlapping phrases (in different orders) while redactions forget uses and
 * coalescing links lore — every transaction commits (no deadlock) and no use is lost.
 */
describe('phrases under concurrent batches and redactions', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await MemoryHarness.start({ DIRIGENT_EPOCH_GAP_MS: '600000' });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('records, links and forgets concurrently without deadlock or lost uses', async () => {
    const guildId = snowflake();
    const em = h.app!.get(EntityManager);
    const phrases = Array.from(
      { length: 30 },
      (_, i) => `shared phrase ${String(i).padStart(2, '0')}`,
    );
    const batches = 24;
    const at = new Date();
    // Batch b uses every phrase once, from message m<b>, in its own (rotated, reversed) order.
    const uses = (b: number) => {
      const order = [...phrases.slice(b % 30), ...phrases.slice(0, b % 30)];
      if (b % 2) order.reverse();
      return order.map((phrase) => ({
        phrase,
        occurrence: { messageId: `m${b}`, authorId: `u${b % 4}` },
        at,
      }));
    };
    // A first round creates the rows, so that the concurrent rounds meet existing rows.
    await em.fork().transactional((tx) => new PhraseStore(tx).record(guildId, uses(0)));
    const writers: Promise<unknown>[] = [];
    for (let b = 1; b < batches; b++) {
      writers.push(em.fork().transactional((tx) => new PhraseStore(tx).record(guildId, uses(b))));
      if (b % 6 === 0) {
        const linked = b % 12 ? phrases : [...phrases].reverse();
        writers.push(
          em
            .fork()
            .transactional((tx) =>
              new PhraseStore(tx).linkLore(guildId, [{ phrases: linked, loreId: `l${b}` }]),
            ),
        );
        // Forgets a message of a batch not written concurrently (m0) and a user with no uses.
        writers.push(
          em.fork().transactional((tx) => new PhraseStore(tx).forget(guildId, ['m0'], 'nobody')),
        );
      }
    }
    const settled = await Promise.allSettled(writers);
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);

    const rows = await sql(
      em.fork(),
      `select phrase, occurrences, uses from memory_phrase where guild_id = ? order by phrase`,
      [guildId],
    );
    expect(rows.map((r) => r.phrase)).toEqual(phrases);
    for (const r of rows) {
      const ids = (r.occurrences as { messageId: string }[]).map((o) => o.messageId);
      // 23 concurrent uses (m0 forgotten), at most 16 kept: each user's first use first.
      expect(ids).toHaveLength(16);
      expect(new Set(ids).size).toBe(16);
      expect(ids).not.toContain('m0');
      const authors = (r.occurrences as { authorId: string }[]).slice(0, 4).map((o) => o.authorId);
      expect(new Set(authors)).toEqual(new Set(['u0', 'u1', 'u2', 'u3']));
      expect(r.uses).toBe(batches);
    }
  });

  it('tells which confirmed phrases took the uses: the lore a batch can change', async () => {
    const guildId = snowflake();
    const em = h.app!.get(EntityManager);
    const at = new Date();
    const record = (messageId: string, authorId: string, phrase = 'always blame dns') =>
      em
        .fork()
        .transactional((tx) =>
          new PhraseStore(tx).record(guildId, [
            { phrase, occurrence: { messageId, authorId }, at },
          ]),
        );
    expect(await record('a1', 'ann')).toEqual([]);
    expect(await record('b1', 'ben')).toEqual([]);
    // The third person confirms it; later uses change its sources, up to 16 of them.
    expect(await record('c1', 'cat')).toEqual(['always blame dns']);
    for (let i = 2; i <= 14; i++)
      expect(await record(`a${i}`, 'ann')).toEqual(['always blame dns']);
    // Full: a 17th use is not kept, so the lore drawn on the phrase cannot change.
    expect(await record('a15', 'ann')).toEqual([]);
    expect(await record('x1', 'ann', 'pizza on friday')).toEqual([]);
  });
});
