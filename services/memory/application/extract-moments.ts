import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { MomentsDue } from '@dirigent/contracts';
import {
  DEFAULT_MOMENT_POLICY,
  judgeMoment,
  momentSignals,
  sampledForScoring,
  type MomentPolicy,
  type RoomMessage,
} from '@dirigent/memory-domain';
import { declareJob, any, type DeclaredJob } from '@dirigent/reactor';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import { EPOCH_CLOSE } from '../adapters/epoch-timer';
import { HighlightRepository, highlightId } from '../adapters/postgres/highlight.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import type { Row } from '../adapters/postgres/sql';
import type { MemoryConfig } from '../config';
import { Indexer } from './indexer';
import { MOMENTS } from './moment-batches';
import { PhraseLore } from './phrase-lore';
import { SUMMARIZER, type Summarizer } from './ports';
import { RedactionQueue } from './redaction-queue';
import { TimeSlice } from './time-slice';

/** How far back an exchange reaches for replies and quotes. */
const EXCHANGE_MS = 30 * 60_000;
/** Messages one batch looks at, at most. */
const BATCH_LIMIT = 500;

const VERIFY = `Does this Discord message disclose something personal and lasting about its author
(where they live, work, family, history, a strong preference)? Answer with JSON only: {"disclosure": true|false}`;
const SCORE = `Rate how memorable this Discord message is for the group that wrote it (a joke that
landed, a hot take, a personal story, a callback): 0 (forgettable) to 10. Answer with JSON only: {"score": <0-10>}`;

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

  constructor(
    private readonly messages: MessageRepository,
    private readonly highlights: HighlightRepository,
    private readonly phrases: PhraseLore,
    private readonly indexer: Indexer,
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
    const sources = await this.phrases.record(guildId, fresh, now);
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
