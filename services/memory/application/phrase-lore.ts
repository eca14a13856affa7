import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import {
  coalescePhrases,
  LORE_MIN_PEOPLE,
  phraseLoreText,
  phraseShingles,
  type RoomMessage,
} from '@dirigent/memory-domain';
import { LoreRepository } from '../adapters/postgres/lore.repository';
import { PhraseStore } from '../adapters/postgres/phrase.store';
import { Indexer } from './indexer';
import { TimeSlice } from './time-slice';

/** A guild's phrases are coalesced at least this often, whatever the batches record. */
const COALESCE_EVERY_MS = 60_000;
/** Phrases not used again for this long are forgotten unless they became lore. */
const PHRASE_TTL_MS = 30 * 86_400_000;

const phraseLoreId = (guildId: string, phrase: string) =>
  `lore-phrase-${createHash('sha1').update(`${guildId}:${phrase}`).digest('hex').slice(0, 24)}`;

/**
 * The phrases people repeat and the lore they become: a channel's cursor of the messages
 * already read for phrases, the uses a moment batch records, and the guild's phrases said by
 * three or more people coalesced into lore (written, linked and indexed).
 */
@Injectable()
export class PhraseLore {
  /** When each guild's phrases were last coalesced by this process. */
  private readonly coalescedAt = new Map<string, number>();
  /** Per guild: the coalescing running in this process and the one waiting for it. */
  private readonly coalescing = new Map<
    string,
    { running: Promise<unknown>; waiting?: Promise<string[]> }
  >();

  constructor(
    private readonly em: EntityManager,
    private readonly phrases: PhraseStore,
    private readonly lore: LoreRepository,
    private readonly indexer: Indexer,
  ) {}

  /** Where the channel's next batch starts (the messages before it are read). */
  cursor(guildId: string, channelId: string) {
    return this.phrases.cursor(guildId, channelId);
  }

  /** The channel's messages up to `at` are read for phrases. */
  advance(guildId: string, channelId: string, at: Date) {
    return this.phrases.advance(guildId, channelId, at);
  }

  /**
   * Records the phrases of a batch's fresh messages, then coalesces the guild's phrases when
   * due; returns the messages the lore it found draws on (none when it did not coalesce).
   */
  async record(guildId: string, fresh: RoomMessage[], now: number): Promise<string[]> {
    const confirmed = await this.recordUses(guildId, fresh);
    // Coalescing reads every confirmed phrase of the guild: only when this batch's uses
    // reached one (or once a minute, for lore a deletion dropped that may come back).
    const due = now - (this.coalescedAt.get(guildId) ?? -Infinity) >= COALESCE_EVERY_MS;
    if (!confirmed.length && !due) return [];
    this.coalescedAt.set(guildId, now);
    return this.coalesceAfterOthers(guildId, now);
  }

  private async recordUses(guildId: string, fresh: RoomMessage[]): Promise<string[]> {
    return this.em.transactional(() =>
      this.phrases.record(
        guildId,
        fresh
          .filter((m) => !m.authorIsBot)
          .flatMap((m) =>
            phraseShingles(m.content).map((phrase) => ({
              phrase,
              occurrence: { messageId: m.messageId, authorId: m.authorId },
              at: new Date(m.at),
            })),
          ),
      ),
    );
  }

  /**
   * Coalesces the guild's phrases once the coalescing running for it in this process is
   * done, joining one that waits already: that one reads the phrases after this batch
   * recorded its uses. Concurrent batches of a guild's channels read and wrote the same
   * lore at once otherwise, each from what it read before the other wrote (an older
   * read could even write its older lore last).
   */
  private coalesceAfterOthers(guildId: string, now: number): Promise<string[]> {
    const cur = this.coalescing.get(guildId);
    if (cur?.waiting) return cur.waiting;
    const before = cur?.running ?? Promise.resolve();
    const waiting: Promise<string[]> = before
      .catch(() => undefined)
      .then(() => {
        this.coalescing.set(guildId, { running: waiting });
        return this.coalesce(guildId, now);
      })
      .finally(() => {
        const after = this.coalescing.get(guildId);
        if (after?.running === waiting && !after.waiting) this.coalescing.delete(guildId);
      });
    this.coalescing.set(guildId, { running: before, waiting });
    return waiting;
  }

  /**
   * Phrases said by at least three people become (or refresh) lore, written in lore id
   * order and linked in one statement (the lock order redactions use); returns the
   * messages the lore it found changed draws on. Every batch of every channel coalesces
   * the whole guild: lore whose shingles are all linked to it, with the same text and
   * sources, is left alone, and the write itself skips a row that is already as it would
   * write it (another replica's batch wrote the same change), so that a busy ingest
   * neither rewrites nor re-embeds unchanged lore: each rewrite left a dead row version
   * for the lore's full-text search to step over.
   */
  private async coalesce(guildId: string, now: number): Promise<string[]> {
    await this.phrases.prune(guildId, new Date(now - PHRASE_TTL_MS));
    const confirmed = await this.phrases.confirmed(guildId, LORE_MIN_PEOPLE);
    const stored = new Map(confirmed.map((c) => [c.phrase, c]));
    /** The text of lore `p.id` as read here, when one of its shingles is linked to it. */
    const storedText = (p: { id: string; shingles: string[] }) =>
      p.shingles.map((s) => stored.get(s)).find((c) => c?.loreId === p.id)?.lore?.text;
    // The guild's lore compared with what is stored a few milliseconds at a time: a guild
    // with thousands of confirmed phrases held the event loop for each batch's whole pass.
    const found: (ReturnType<typeof coalescePhrases>[number] & { id: string; text: string })[] = [];
    const slice = new TimeSlice();
    for (const coalesced of coalescePhrases(confirmed)) {
      if (slice.spent) await slice.next();
      const p = {
        ...coalesced,
        id: phraseLoreId(guildId, coalesced.phrase),
        text: phraseLoreText(coalesced),
      };
      const changed = p.shingles.some((s) => {
        const c = stored.get(s);
        return (
          c?.loreId !== p.id || c.lore?.text !== p.text || !sameSet(c.lore.sourceIds, p.messageIds)
        );
      });
      if (changed) found.push(p);
    }
    found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const written = await this.em.transactional(async () => {
      const ids = await this.lore.upsertPhrases(
        guildId,
        found.map((p) => ({ id: p.id, text: p.text, sourceIds: p.messageIds })),
        new Date(now),
      );
      await this.phrases.linkLore(
        guildId,
        found.map((p) => ({ phrases: p.shingles, loreId: p.id })),
      );
      return new Set(ids);
    });
    const changed = found.filter((p) => written.has(p.id));
    await this.indexer.index(
      guildId,
      changed
        .filter((p) => storedText(p) !== p.text)
        .map((p) => ({ layer: 'lore' as const, refId: p.id, text: p.text })),
    );
    // Lore another batch wrote as this one read it is checked for a raced deletion too.
    return found.flatMap((p) => p.messageIds);
  }
}

/** The same ids, whatever their order. */
const sameSet = (a: readonly string[], b: readonly string[]) => {
  const inA = new Set(a);
  return inA.size === new Set(b).size && b.every((x) => inA.has(x));
};
