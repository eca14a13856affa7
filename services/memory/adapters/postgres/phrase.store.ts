import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { mergeOccurrences, type PhraseOccurrence, type PhraseUses } from '@dirigent/memory-domain';
import { sql } from './sql';

/**
 * Phrases repeated across a guild (`memory_phrase`: the messages and people that used each
 * three-word phrase) and the moment batch's cursor per channel (`memory_moment_scan`).
 */
@Injectable()
export class PhraseStore {
  constructor(private readonly em: EntityManager) {}

  /** Adds uses of phrases (one statement to read, one to write); returns the phrases touched. */
  async record(
    guildId: string,
    uses: { phrase: string; occurrence: PhraseOccurrence; at: Date }[],
  ): Promise<void> {
    if (!uses.length) return;
    const byPhrase = new Map<string, { occ: PhraseOccurrence[]; at: Date }>();
    for (const u of uses) {
      const cur = byPhrase.get(u.phrase) ?? { occ: [], at: u.at };
      cur.occ.push(u.occurrence);
      if (u.at > cur.at) cur.at = u.at;
      byPhrase.set(u.phrase, cur);
    }
    const phrases = [...byPhrase.keys()];
    const existing = await sql(
      this.em,
      `select phrase, occurrences from memory_phrase where guild_id = ?
       and phrase in (select jsonb_array_elements_text(?::jsonb)) for update`,
      [guildId, JSON.stringify(phrases)],
    );
    const had = new Map(existing.map((r) => [r.phrase as string, r.occurrences]));
    const rows = phrases.sort().map((phrase) => {
      const { occ, at } = byPhrase.get(phrase)!;
      return {
        phrase,
        occurrences: mergeOccurrences(had.get(phrase) ?? [], occ),
        uses: occ.length,
        last_at: at.toISOString(),
      };
    });
    await sql(
      this.em,
      `insert into memory_phrase (guild_id, phrase, occurrences, uses, last_at)
       select ?, x.phrase, x.occurrences, x.uses, x.last_at
       from jsonb_to_recordset(?::jsonb) as x(phrase varchar, occurrences jsonb, uses int, last_at timestamptz)
       on conflict (guild_id, phrase) do update set occurrences = excluded.occurrences,
         uses = memory_phrase.uses + excluded.uses,
         last_at = greatest(memory_phrase.last_at, excluded.last_at)`,
      [guildId, JSON.stringify(rows)],
    );
  }

  /** Phrases used by at least `minPeople` different people (the lore candidates). */
  async confirmed(
    guildId: string,
    minPeople: number,
  ): Promise<(PhraseUses & { loreId: string | null })[]> {
    const rows = await sql(
      this.em,
      `select phrase, occurrences, lore_id from memory_phrase p where guild_id = ?
       and (select count(distinct o->>'authorId') from jsonb_array_elements(p.occurrences) o) >= ?`,
      [guildId, minPeople],
    );
    return rows.map((r) => ({ phrase: r.phrase, occurrences: r.occurrences, loreId: r.lore_id }));
  }

  async linkLore(guildId: string, phrases: string[], loreId: string): Promise<void> {
    await sql(
      this.em,
      `update memory_phrase set lore_id = ? where guild_id = ?
       and phrase in (select jsonb_array_elements_text(?::jsonb))`,
      [loreId, guildId, JSON.stringify(phrases)],
    );
  }

  /**
   * Drops the uses by deleted messages (or by a forgotten user); a phrase nobody uses any
   * more goes, and phrases whose lore was dropped may become lore again from what remains.
   */
  async forget(guildId: string, messageIds: string[], userId?: string): Promise<void> {
    await sql(
      this.em,
      `with changed as (
         select p.phrase, coalesce((select jsonb_agg(o) from jsonb_array_elements(p.occurrences) o
           where not (o->>'messageId' in (select jsonb_array_elements_text(?::jsonb)))
             and (?::text is null or o->>'authorId' <> ?::text)), '[]') as occ
         from memory_phrase p where p.guild_id = ? and exists (
           select 1 from jsonb_array_elements(p.occurrences) o
           where o->>'messageId' in (select jsonb_array_elements_text(?::jsonb))
             or o->>'authorId' = ?::text))
       update memory_phrase p set occurrences = changed.occ, lore_id = null
       from changed where p.guild_id = ? and p.phrase = changed.phrase`,
      [
        JSON.stringify(messageIds),
        userId ?? null,
        userId ?? null,
        guildId,
        JSON.stringify(messageIds),
        userId ?? null,
        guildId,
      ],
    );
    await sql(
      this.em,
      `delete from memory_phrase where guild_id = ? and occurrences = '[]'::jsonb`,
      [guildId],
    );
  }

  /** Forgets phrases not used since `before` that did not become lore (the table stays small). */
  async prune(guildId: string, before: Date): Promise<void> {
    await sql(
      this.em,
      `delete from memory_phrase where guild_id = ? and lore_id is null and last_at < ?`,
      [guildId, before],
    );
  }

  /** Where the channel's moment batch got to (null: never looked). */
  async cursor(guildId: string, channelId: string): Promise<Date | null> {
    const [row] = await sql(
      this.em,
      `select scanned_through from memory_moment_scan where guild_id = ? and channel_id = ?`,
      [guildId, channelId],
    );
    return row ? new Date(row.scanned_through) : null;
  }

  async advance(guildId: string, channelId: string, through: Date): Promise<void> {
    await sql(
      this.em,
      `insert into memory_moment_scan (guild_id, channel_id, scanned_through) values (?, ?, ?)
       on conflict (guild_id, channel_id) do update
       set scanned_through = greatest(memory_moment_scan.scanned_through, excluded.scanned_through)`,
      [guildId, channelId, through],
    );
  }
}
