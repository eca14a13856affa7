import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { EpochCloseDue, MemoryEventTypes, subject, type EpochClosed } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import {
  epochCloseDue,
  epochId,
  epochTranscript,
  outlineEpoch,
  type EpochMessage,
} from '@dirigent/memory-domain';
import { Reactor } from '@dirigent/reactor';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { EPOCH_CLOSE, EpochTimer } from '../adapters/epoch-timer';
import { EpochRepository, epochView } from '../adapters/postgres/epoch.repository';
import { LoreRepository } from '../adapters/postgres/lore.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import type { Row } from '../adapters/postgres/sql';
import type { MemoryConfig } from '../config';
import { Indexer } from './indexer';
import { CLOCK, SUMMARIZER, type Clock, type Summarizer } from './ports';

const SYSTEM = `Summarise one finished conversation of a Discord channel. Answer with JSON only:
{"summary": "<2-4 sentences>", "topics": ["<1-3 word tag>", ...], "lore": ["<a recurring pattern of this group, if any>"]}`;

/**
 * The reactor job `epoch-close`, on the channel's durable timer (re-armed by every
 * message): closes a channel's epoch once it has been silent for the gap. The epoch's id comes from
 * its first message, the row and the messages' assignment commit together, and the event
 * is published with the epoch id as `Nats-Msg-Id` and marked published afterwards: a crash
 * at any point (a SIGKILL while the timer is pending, between commit and publish) neither
 * loses nor doubles the epoch.
 */
@Injectable()
export class CloseEpoch {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly epochs: EpochRepository,
    private readonly lore: LoreRepository,
    private readonly messaging: Messaging,
    private readonly timer: EpochTimer,
    private readonly indexer: Indexer,
    @Inject(SUMMARIZER) private readonly model: Summarizer,
    @Inject(CLOCK) private readonly now: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: MemoryConfig,
    reactor: Reactor,
  ) {
    reactor.job({
      name: 'epoch-close',
      trigger: EPOCH_CLOSE,
      parse: EpochCloseDue.create,
      run: (due) => this.run(due),
    });
  }

  async run({ guildId, channelId }: EpochCloseDue): Promise<void> {
    await this.publishPending(guildId, channelId);
    const open = (await this.messages.openEpoch(guildId, channelId)).map(
      (r): EpochMessage => ({
        messageId: r.message_id,
        authorId: r.author_id,
        authorName: r.author_name ?? undefined,
        content: r.content,
        at: new Date(r.created_at).getTime(),
      }),
    );
    if (!open.length) return;
    const gap = this.config.DIRIGENT_EPOCH_GAP_MS;
    const lastAt = Math.max(...open.map((m) => m.at));
    if (!epochCloseDue(lastAt, gap, this.now())) {
      // A message handled out of order armed an earlier alarm: wait for the real silence.
      await this.timer.arm(guildId, channelId, lastAt + gap, true);
      return;
    }
    const outline = outlineEpoch(open);
    const id = epochId(channelId, open[0].messageId);
    const told = parseSummary(
      await this.model.complete(guildId, 'epoch-summarize', SYSTEM, epochTranscript(open)),
    );
    const summary = told?.summary ?? fallbackSummary(open, outline.participants.length);
    const event: EpochClosed = {
      epochId: id,
      guildId,
      channelId,
      startAt: new Date(outline.startAt).toISOString(),
      endAt: new Date(outline.endAt).toISOString(),
      messageCount: outline.messageCount,
      participants: outline.participants,
      summary,
      topics: told?.topics ?? [],
    };
    await this.em.transactional(async () => {
      await this.epochs.record(guildId, event);
      await this.messages.assignEpoch(
        guildId,
        open.map((m) => m.messageId),
        id,
      );
      for (const [i, text] of (told?.lore ?? []).entries()) {
        await this.lore.add(
          guildId,
          `${id}-lore-${i}`.slice(0, 80),
          text,
          id,
          new Date(outline.endAt),
        );
      }
    });
    await this.indexer.index(guildId, [
      { layer: 'epochs', refId: id, text: `${summary} ${event.topics.join(' ')}` },
      ...(told?.lore ?? []).map((text, i) => ({
        layer: 'lore' as const,
        refId: `${id}-lore-${i}`.slice(0, 80),
        text,
      })),
    ]);
    await this.publishPending(guildId, channelId);
  }

  private async publishPending(guildId: string, channelId: string): Promise<void> {
    for (const row of await this.epochs.unpublished(guildId, channelId)) {
      await this.messaging.publishEvent(
        subject.memoryEvent(guildId, channelId, 'epoch.closed'),
        MemoryEventTypes.epochClosed,
        closedEvent(guildId, row),
        { id: row.id },
      );
      await this.epochs.markPublished(row.id);
    }
  }
}

function closedEvent(guildId: string, r: Row): EpochClosed {
  const { id, ...rest } = epochView(r);
  return { epochId: id, guildId, ...rest };
}

/** Without a usable model answer: who talked, how much, and the first words (a plain index). */
function fallbackSummary(open: EpochMessage[], people: number): string {
  const first = open[0].content.slice(0, 120);
  return `${open.length} messages from ${people} ${people === 1 ? 'person' : 'people'}, starting: "${first}"`;
}

export function parseSummary(
  text: string | null,
): { summary: string; topics: string[]; lore: string[] } | null {
  const json = text?.match(/\{[\s\S]*\}/)?.[0];
  if (!json) return null;
  try {
    const v = JSON.parse(json) as { summary?: unknown; topics?: unknown; lore?: unknown };
    if (typeof v.summary !== 'string' || !v.summary.trim()) return null;
    const strings = (x: unknown) =>
      Array.isArray(x)
        ? x.filter((s): s is string => typeof s === 'string' && !!s.trim()).slice(0, 10)
        : [];
    return { summary: v.summary.trim(), topics: strings(v.topics), lore: strings(v.lore) };
  } catch {
    return null;
  }
}
