import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import {
  MemoryEventTypes,
  MemoryTimers,
  MomentsDue,
  subject,
  type MessageCreated,
} from '@dirigent/contracts';
import {
  coalescePhrases,
  DEFAULT_MOMENT_POLICY,
  judgeMoment,
  LORE_MIN_PEOPLE,
  momentSignals,
  phraseLoreText,
  phraseShingles,
  sampledForScoring,
  type MomentPolicy,
  type RoomMessage,
} from '@dirigent/memory-domain';
import { declareJob, any, Reactor, timer, type DeclaredJob } from '@dirigent/reactor';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import { EPOCH_CLOSE } from '../adapters/epoch-timer';
import { HighlightRepository, highlightId } from '../adapters/postgres/highlight.repository';
import { LoreRepository } from '../adapters/postgres/lore.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import { PhraseStore } from '../adapters/postgres/phrase.store';
import type { Row } from '../adapters/postgres/sql';
import type { MemoryConfig } from '../config';
import { Indexer } from './indexer';
import { SUMMARIZER, type Summarizer } from './ports';
import { RedactionQueue } from './redaction-queue';
import { TimeSlice } from './time-slice';

/** The trigger of a channel's moment batch when enough new messages arrived. */
export const MOMENTS = timer({
  subject: subject.timerFired('memory', MemoryTimers.moments),
  type: MemoryEventTypes.momentsDue,
});

/** How far back an exchange reaches for replies and quotes. */
const EXCHANGE_MS = 30 * 60_000;
/** Messages one batch looks at, at most. */
const BATCH_LIMIT = 500;
/** A guild's phrases are coalesced at least this often, whatever the batches record. */
const COALESCE_EVERY_MS = 60_000;
/** Phrases not used again for this long are forgotten unless they became lore. */
const PHRASE_TTL_MS = 30 * 86_400_000;

const VERIFY = `Does this Discord message disclose something personal and lasting about its author
(where they live, work, family, history, a strong preference)? Answer with JSON only: {"disclosure": true|false}`;
const SCORE = `Rate how memorable this Discord message is for the group that wrote it (a joke that
landed, a hot take, a personal story, a callback): 0 (forgettable) to 10. Answer with JSON only: {"score": <0-10>}`;

const phraseLoreId = (guildId: string, phrase: string) =>
  `lore-phrase-${createHash('sha1').update(`${guildId}:${phrase}`).digest('hex').slice(0, 24)}`;

const roomMessage = (r: Row): RoomMessage => ({
  messageId: r.message_id,
  authorId: r.author_id,
  authorIsBot: r.author_is_bot,
  content: r.content,
  at: new Date(r.created_at).getTime(),
  replyToMessageId: r.reply_to_message_id ?? undefined,
  reactionCount: r.reaction_count ?? 0,
  replyCount: r.reply_count ?? 0,
  quoteCount: r.quote_count ?? 0,
});

/**
 * MomentExtractor: which messages of the room deserve keeping verbatim, from the cheapest
 * signals first (reactions, the reply graph, quotes — the bot's reply quoted, a
 * self-disclosure, the silence after a message), then the model (purpose `memory`): a
 * pattern-found disclosure confirmed when `DIRIGENT_MEMORY_VERIFY_DISCLOSURES`, a sample of
 * messages scored (`DIRIGENT_MEMORY_SAMPLE_RATE`). It runs on each finished exchange (a
 * router decision) and, as the reactor job `moments-batch`, over a channel's new messages
 * when its epoch closes or enough of them arrived; the batch also records the phrases
 * people repeat and coalesces those said by three or more people into lore.
 */
@Injectable()
export class ExtractMoments {
  private readonly log = new Logger('memory:moments');
  private readonly policy: MomentPolicy;
  private readonly counted = new Map<string, number>();
  /** When each guild's phrases were last coalesced by this process. */
  private readonly coalescedAt = new Map<string, number>();
  /** Per guild: the coalescing running in this process and the one waiting for it. */
  private readonly coalescing = new Map<
    string,
    { running: Promise<unknown>; waiting?: Promise<string[]> }
  >();

  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly highlights: HighlightRepository,
    private readonly lore: LoreRepository,
    private readonly phrases: PhraseStore,
    private readonly indexer: Indexer,
    private readonly reactor: Reactor,
    private readonly redactions: RedactionQueue,
    @Inject(SUMMARIZER) private readonly model: Summarizer,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: MemoryConfig,
  ) {
    this.policy = { ...DEFAULT_MOMENT_POLICY, silenceMs: config.DIRIGENT_MEMORY_SILENCE_MS };
  }

  /** The reactor job `moments-batch` (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    return [
      declareJob({
        name: 'moments-batch',
        trigger: any(EPOCH_CLOSE, MOMENTS),
        parse: MomentsDue.create,
        // Never holds up (or fails) the epoch close that shares its timer.
        run: (due) =>
          this.batch(due.guildId, due.channelId).catch((e: Error) =>
            this.log.warn(`moment batch of ${due.channelId}: ${e.message}`),
          ),
      }),
    ];
  }

  /**
   * Counts stored messages per channel; at `DIRIGENT_MEMORY_MOMENT_BATCH` arms the
   * channel's batch (a durable timer due now). A count lost to a crash is made up when
   * the channel's epoch closes.
   */
  async count(events: MessageCreated[]): Promise<void> {
    for (const e of events) {
      const key = `${e.guildId}:${e.channelId}`;
      const n = (this.counted.get(key) ?? 0) + 1;
      if (n < this.config.DIRIGENT_MEMORY_MOMENT_BATCH) {
        this.counted.set(key, n);
        continue;
      }
      this.counted.delete(key);
      const data: MomentsDue = { guildId: e.guildId, channelId: e.channelId };
      await this.reactor.arm(MOMENTS, `moments:${key}`, this.clock.now(), data);
    }
  }

  /** The exchange a router decision finished: the channel's messages from its inbound message on. */
  async exchange(guildId: string, channelId: string, inboundMessageId?: string): Promise<void> {
    const now = this.clock.now();
    const { rows } = await this.messages.channelWindow(
      guildId,
      channelId,
      new Date(now - EXCHANGE_MS),
      BATCH_LIMIT,
      0,
    );
    const window = rows.map(roomMessage);
    const from = window.findIndex((m) => m.messageId === inboundMessageId);
    const scope = from >= 0 ? window.slice(from) : window.slice(-10);
    // Messages the inbound one replies to are part of the exchange too.
    const answered = window.filter((m) => scope.some((s) => s.replyToMessageId === m.messageId));
    await this.extract(guildId, window, [...answered, ...scope], now, false);
  }

  /** A channel's messages since the last batch: moments, phrases, lore. */
  async batch(guildId: string, channelId: string): Promise<void> {
    const cursor = await this.phrases.cursor(guildId, channelId);
    const { before, rows } = await this.messages.channelWindow(
      guildId,
      channelId,
      cursor,
      BATCH_LIMIT,
    );
    if (!rows.length) return;
    const fresh = rows.map(roomMessage);
    const now = this.clock.now();
    await this.extract(guildId, [...before.map(roomMessage), ...fresh], fresh, now, true);
    const confirmed = await this.recordPhrases(guildId, fresh);
    // Coalescing reads every confirmed phrase of the guild: only when this batch's uses
    // reached one (or once a minute, for lore a deletion dropped that may come back).
    const due = now - (this.coalescedAt.get(guildId) ?? -Infinity) >= COALESCE_EVERY_MS;
    let sources: string[] = [];
    if (confirmed.length || due) {
      this.coalescedAt.set(guildId, now);
      sources = await this.coalesceAfterOthers(guildId, now);
    }
    await this.redactRaced(guildId, [...fresh.map((m) => m.messageId), ...sources], now);
    // The newest message is looked at again until the silence after it is known.
    const last = fresh[fresh.length - 1];
    const settled = now - last.at >= this.policy.silenceMs ? last : fresh[fresh.length - 2];
    if (settled) await this.phrases.advance(guildId, channelId, new Date(settled.at));
  }

  private async extract(
    guildId: string,
    window: RoomMessage[],
    scope: RoomMessage[],
    now: number,
    sample: boolean,
  ): Promise<void> {
    const kept: { messageId: string; text: string }[] = [];
    // A batch judges up to 500 messages: searches answer between its slices.
    const slice = new TimeSlice();
    for (const m of scope) {
      if (slice.spent) await slice.next();
      const signals = momentSignals(m, window, now, this.policy);
      let moment = judgeMoment(signals);
      if (moment?.verify && this.config.DIRIGENT_MEMORY_VERIFY_DISCLOSURES) {
        const confirmed = await this.ask<{ disclosure?: unknown }>(guildId, VERIFY, m.content);
        if (confirmed?.disclosure === false) {
          moment = judgeMoment(signals.filter((s) => !s.verify));
        }
      }
      if (
        !moment &&
        sample &&
        !m.authorIsBot &&
        sampledForScoring(m.messageId, this.config.DIRIGENT_MEMORY_SAMPLE_RATE)
      ) {
        const scored = await this.ask<{ score?: unknown }>(guildId, SCORE, m.content);
        const score = typeof scored?.score === 'number' ? scored.score : 0;
        if (score >= 7) moment = { kind: 'scored', score: score / 7 };
      }
      if (!moment) continue;
      const h = await this.highlights.addFromMessage(
        guildId,
        m.messageId,
        moment.kind,
        moment.score,
      );
      if (h?.created) kept.push({ messageId: m.messageId, text: m.content });
    }
    await this.indexer.index(
      guildId,
      kept.map((k) => ({
        layer: 'highlights' as const,
        refId: highlightId(k.messageId),
        text: k.text,
      })),
    );
  }

  private async recordPhrases(guildId: string, fresh: RoomMessage[]): Promise<string[]> {
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
    const found = coalescePhrases(confirmed)
      .map((p) => ({ ...p, id: phraseLoreId(guildId, p.phrase), text: phraseLoreText(p) }))
      .filter((p) =>
        p.shingles.some((s) => {
          const c = stored.get(s);
          return (
            c?.loreId !== p.id ||
            c.lore?.text !== p.text ||
            !sameSet(c.lore.sourceIds, p.messageIds)
          );
        }),
      )
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
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

  /**
   * A message deleted (or forgotten) while the batch read it: its redaction may have run
   * before the batch recorded its phrases or lore, so it is redacted again.
   */
  private async redactRaced(guildId: string, messageIds: string[], now: number): Promise<void> {
    const deleted = await this.messages.tombstoned(guildId, [...new Set(messageIds)]);
    if (!deleted.length) return;
    await this.redactions.enqueue({
      id: `moments:${guildId}:${now}:${createHash('sha1').update(deleted.sort().join(',')).digest('hex').slice(0, 16)}`,
      guildId,
      messageIds: deleted,
      authorIds: [],
    });
  }

  /** A JSON answer of the model (purpose `memory`), or null when there is none usable. */
  private async ask<T>(guildId: string, system: string, text: string): Promise<T | null> {
    const answer = await this.model.complete(guildId, 'memory', system, text);
    const json = answer?.match(/\{[\s\S]*\}/)?.[0];
    if (!json) return null;
    try {
      return JSON.parse(json) as T;
    } catch {
      return null;
    }
  }
}

/** The same ids, whatever their order. */
const sameSet = (a: readonly string[], b: readonly string[]) => {
  const inA = new Set(a);
  return inA.size === new Set(b).size && b.every((x) => inA.has(x));
};
