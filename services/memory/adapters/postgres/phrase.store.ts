import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import {
  LORE_MIN_PEOPLE,
  MAX_OCCURRENCES,
  mergeOccurrences,
  type PhraseOccurrence,
  type PhraseUses,
} from '@dirigent/memory-domain';
import { containsPatterns, sql } from './sql';

export interface ConfirmedPhrase extends PhraseUses {
  loreId: string | null;
  /** The linked lore as stored; null when there is none (not linked, or dropped). */
  lore: { text: string; sourceIds: string[] } | null;
}

/**
 * Phrases repeated across a guild (`memory_phrase`: the messages and people that used each
 * three-word phrase) and the moment batch's cursor per channel (`memory_moment_scan`).
 */
@Injectable()
export class PhraseStore {
  constructor(private readonly em: EntityManager) {}

  /**
   * Adds uses of phrases in one statement: the merge of a phrase's occurrences (once per
   * message, each person's first use first, at most `MAX_OCCURRENCES`) happens in the
   * upsert, on the row as it is when locked, so concurrent batches lose no use; rows are
   * written in phrase order, the order every writer of `memory_phrase` locks them in, so
   * concurrent batches and redactions cannot deadlock. Returns the phrases said by at
   * least `minPeople` people whose occurrences took one of these uses: the lore these
   * uses can change.
   */
  async record(
    guildId: string,
    uses: { phrase: string; occurrence: PhraseOccurrence; at: Date }[],
    minPeople = LORE_MIN_PEOPLE,
  ): Promise<string[]> {
    if (!uses.length) return [];
    const byPhrase = new Map<string, { occ: PhraseOccurrence[]; at: Date }>();
    for (const u of uses) {
      const cur = byPhrase.get(u.phrase) ?? { occ: [], at: u.at };
      cur.occ.push(u.occurrence);
      if (u.at > cur.at) cur.at = u.at;
      byPhrase.set(u.phrase, cur);
    }
    const rows = [...byPhrase].map(([phrase, { occ, at }]) => ({
      phrase,
      occurrences: mergeOccurrences([], occ),
      uses: occ.length,
      last_at: at.toISOString(),
    }));
    const kept = await sql(
      this.em,
      `with up as (insert into memory_phrase (guild_id, phrase, occurrences, uses, last_at)
       select ?, x.phrase, x.occurrences, x.uses, x.last_at
       from jsonb_to_recordset(?::jsonb) as x(phrase varchar, occurrences jsonb, uses int, last_at timestamptz)
       order by x.phrase
       on conflict (guild_id, phrase) do update set
         occurrences = (select coalesce(jsonb_agg(s.o order by s.is_first desc, s.ord), '[]'::jsonb)
           from (select d.o, d.ord,
                   row_number() over (partition by d.o->>'authorId' order by d.ord) = 1 as is_first
                 from (select distinct on (e.o->>'messageId') e.o, e.ord
                       from jsonb_array_elements(memory_phrase.occurrences || excluded.occurrences)
                         with ordinality as e(o, ord)
                       order by e.o->>'messageId', e.ord) d
                 order by is_first desc, d.ord limit ${MAX_OCCURRENCES}) s),
         uses = memory_phrase.uses + excluded.uses,
         last_at = greatest(memory_phrase.last_at, excluded.last_at)
       returning phrase, occurrences)
       select up.phrase, up.occurrences from up
       where (select count(distinct o->>'authorId') from jsonb_array_elements(up.occurrences) o) >= ?`,
      [guildId, JSON.stringify(rows), minPeople],
    );
    // Whether these uses are among the kept occurrences, looked up here: in the statement it
    // compared every occurrence with every message of the batch (a second for 500 messages).
    const batch = new Set(uses.map((u) => u.occurrence.messageId));
    return kept
      .filter((r) => (r.occurrences as PhraseOccurrence[]).some((o) => batch.has(o.messageId)))
      .map((r) => r.phrase as string);
  }

  /**
   * Phrases used by at least `minPeople` different people (the lore candidates), each with
   * the lore it is linked to as stored (text and sources), so that unchanged lore is not
   * written again.
   */
  async confirmed(guildId: string, minPeople: number): Promise<ConfirmedPhrase[]> {
    const rows = await sql(
      this.em,
      `select p.phrase, p.occurrences, p.lore_id, l.text as lore_text,
         l.source_message_ids as lore_sources
       from memory_phrase p
       left join memory_lore l on l.guild_id = p.guild_id and l.id = p.lore_id
       where p.guild_id = ?
       and (select count(distinct o->>'authorId') from jsonb_array_elements(p.occurrences) o) >= ?`,
      [guildId, minPeople],
    );
    return rows.map((r) => ({
      phrase: r.phrase,
      occurrences: r.occurrences,
      loreId: r.lore_id,
      lore: r.lore_text === null ? null : { text: r.lore_text, sourceIds: r.lore_sources ?? [] },
    }));
  }

  /**
   * Links phrases to the lore coalesced from them, in one statement (rows locked in phrase
   * order); a phrase already linked to its lore is not written again.
   */
  async linkLore(guildId: string, links: { phrases: string[]; loreId: string }[]): Promise<void> {
    const pairs = links.flatMap((l) => l.phrases.map((phrase) => ({ phrase, lore_id: l.loreId })));
    if (!pairs.length) return;
    await sql(
      this.em,
      `with x as (select * from jsonb_to_recordset(?::jsonb) as x(phrase varchar, lore_id varchar)),
       locked as (select p.phrase from memory_phrase p where p.guild_id = ?
         and p.phrase in (select phrase from x) order by p.phrase for update)
       update memory_phrase p set lore_id = x.lore_id from x, locked
       where p.guild_id = ? and p.phrase = x.phrase and locked.phrase = x.phrase
       and p.lore_id is distinct from x.lore_id`,
      [JSON.stringify(pairs), guildId, guildId],
    );
  }

  /**
   * Drops the uses by deleted messages (or by a forgotten user, and the phrases that name
   * them: `names` as phrase words); a phrase nobody uses any more goes, and phrases whose
   * lore was dropped may become lore again from what remains. The rows are locked in
   * phrase order first, in one statement (see `record`).
   */
  async forget(
    guildId: string,
    messageIds: string[],
    userId?: string,
    names: string[] = [],
  ): Promise<void> {
    const touched = await sql(
      this.em,
      `select phrase from memory_phrase p where p.guild_id = ? and (exists (
         select 1 from jsonb_array_elements(p.occurrences) o
         where o->>'messageId' in (select jsonb_array_elements_text(?::jsonb))
           or o->>'authorId' = ?::text)
         or p.phrase ilike any (array(select jsonb_array_elements_text(?::jsonb))))
       order by phrase for update`,
      [
        guildId,
        JSON.stringify(messageIds),
        userId ?? null,
        JSON.stringify(containsPatterns(names)),
      ],
    );
    if (!touched.length) return;
    const phrases = JSON.stringify(touched.map((r) => r.phrase as string));
    await sql(
      this.em,
      `update memory_phrase p set lore_id = null, occurrences = coalesce((
         select jsonb_agg(o order by ord) from jsonb_array_elements(p.occurrences) with ordinality as e(o, ord)
         where not (o->>'messageId' in (select jsonb_array_elements_text(?::jsonb)))
           and (?::text is null or o->>'authorId' <> ?::text)), '[]'::jsonb)
       where p.guild_id = ? and p.phrase in (select jsonb_array_elements_text(?::jsonb))`,
      [JSON.stringify(messageIds), userId ?? null, userId ?? null, guildId, phrases],
    );
    await sql(
      this.em,
      `delete from memory_phrase where guild_id = ?
       and phrase in (select jsonb_array_elements_text(?::jsonb))
       and (occurrences = '[]'::jsonb or phrase ilike any (array(select jsonb_array_elements_text(?::jsonb))))`,
      [guildId, phrases, JSON.stringify(containsPatterns(names))],
    );
  }

  /**
   * Forgets phrases not used since `before` that did not become lore (the table stays
   * small); rows another transaction holds are left for the next prune.
   */
  async prune(guildId: string, before: Date): Promise<void> {
    await sql(
      this.em,
      `delete from memory_phrase where guild_id = ? and phrase in (
         select phrase from memory_phrase where guild_id = ? and lore_id is null and last_at < ?
         order by phrase for update skip locked)`,
      [guildId, guildId, before],
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
