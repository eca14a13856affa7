import { EntityManager } from '@mikro-orm/postgresql';
import { snowflake, waitFor } from '@dirigent/testing';
import { MemoryLore } from '../adapters/postgres/lore.entity';
import type { LoreRepository } from '../adapters/postgres/lore.repository';
import { PhraseStore } from '../adapters/postgres/phrase.store';
import { sql } from '../adapters/postgres/sql';
import { ExtractMoments } from '../application/extract-moments';
import { MemoryHarness } from './harness';

jest.setTimeout(90_000);

/**
 * Phrase lore is written only when its text or its sources change: every moment batch of
 * every channel coalesces the guild's phrases, and each write of an unchanged row left a
 * dead row version behind for the lore's full-text search to step over. A row's `xmin`
 * (the transaction that wrote its version) tells whether it was written again.
 */
describe('phrase lore writes', () => {
  let h: MemoryHarness;
  let em: EntityManager;
  beforeAll(async () => {
    h = await MemoryHarness.start({
      // The batches run when the test says so (no epoch closes, no count arms one); the
      // newest message of a channel is never settled, so each batch reads it again.
      DIRIGENT_EPOCH_GAP_MS: String(365 * 86_400_000),
      DIRIGENT_MEMORY_MOMENT_BATCH: '10000',
      DIRIGENT_MEMORY_SILENCE_MS: '86400000',
    });
    em = h.app!.get(EntityManager);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const version = async (table: 'memory_lore' | 'memory_phrase', where: string, arg: string) => {
    const rows = await sql(em.fork(), `select xmin::text as xmin from ${table} where ${where}`, [
      arg,
    ]);
    return rows[0]?.xmin as string | undefined;
  };

  it('upserts a lore row only when its text or its sources (as a set) change', async () => {
    const guildId = snowflake();
    const id = `lore-phrase-test-${guildId}`;
    const at = new Date();
    const write = (text: string, sourceIds: string[]) =>
      (em.fork().getRepository(MemoryLore) as unknown as LoreRepository).upsertPhrases(
        guildId,
        [{ id, text, sourceIds }],
        at,
      );
    const lore = () => version('memory_lore', 'id = ?', id);

    expect(await write('said by 3 people', ['m1', 'm2', 'm3'])).toEqual([id]);
    const created = await lore();
    expect(await write('said by 3 people', ['m3', 'm1', 'm2'])).toEqual([]);
    expect(await lore()).toBe(created);

    expect(await write('said by 3 people', ['m1', 'm2', 'm3', 'm4'])).toEqual([id]);
    const moreSources = await lore();
    expect(moreSources).not.toBe(created);
    expect(await write('said by 4 people', ['m1', 'm2', 'm3', 'm4'])).toEqual([id]);
    expect(await lore()).not.toBe(moreSources);
    const [row] = await sql(
      em.fork(),
      `select text, source_message_ids from memory_lore where id = ?`,
      [id],
    );
    expect(row).toEqual({ text: 'said by 4 people', source_message_ids: ['m1', 'm2', 'm3', 'm4'] });

    // A phrase linked to its lore already is not written again.
    const phrase = 'coffee machine strikes';
    await new PhraseStore(em.fork()).record(guildId, [
      { phrase, occurrence: { messageId: 'm1', authorId: 'ann' }, at },
    ]);
    await new PhraseStore(em.fork()).linkLore(guildId, [{ phrases: [phrase], loreId: id }]);
    const linked = await version('memory_phrase', `guild_id = '${guildId}' and phrase = ?`, phrase);
    await new PhraseStore(em.fork()).linkLore(guildId, [{ phrases: [phrase], loreId: id }]);
    expect(await version('memory_phrase', `guild_id = '${guildId}' and phrase = ?`, phrase)).toBe(
      linked,
    );
  });

  it('concurrent batches land every change, and batches that change nothing write nothing', async () => {
    const g = h.guild();
    const moments = h.app!.get(ExtractMoments);
    const channels = [snowflake(), snowflake(), snowflake()];
    const people = Array.from({ length: 5 }, () => snowflake());
    // Three people in the first channel, a fourth and a fifth in the others.
    const where = [0, 0, 0, 1, 2];
    for (const [i, who] of people.entries()) {
      await g.say(channels[where[i]], who, 'the coffee machine strikes again');
    }
    await waitFor(
      async () =>
        (
          await sql(em.fork(), `select count(*)::int as n from memory_message where guild_id = ?`, [
            g.guildId,
          ])
        )[0].n === 5,
      30_000,
      50,
      'the messages to be stored',
    );
    const lore = () =>
      sql(
        em.fork(),
        `select xmin::text as xmin, text, source_message_ids from memory_lore where guild_id = ?`,
        [g.guildId],
      );

    await moments.batch(g.guildId, channels[0]);
    const [first] = await lore();
    expect(first.text).toBe(
      'Recurring phrase in the group: "the coffee machine strikes again" (said by 3 people)',
    );

    // Two channels' batches at once, each adding a person: neither change is lost.
    await Promise.all([
      moments.batch(g.guildId, channels[1]),
      moments.batch(g.guildId, channels[2]),
    ]);
    const [both] = await lore();
    expect(both.text).toBe(
      'Recurring phrase in the group: "the coffee machine strikes again" (said by 5 people)',
    );
    expect(both.source_message_ids).toHaveLength(5);

    // Every channel's batch again, at once: each records its newest message's uses again
    // and coalesces, and the lore row keeps its version.
    await Promise.all(channels.map((c) => moments.batch(g.guildId, c)));
    const [again] = await lore();
    expect(again).toEqual(both);
  });
});
