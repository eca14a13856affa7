import { Inject, Injectable } from '@nestjs/common';
import {
  epochTranscript,
  extractiveSummary,
  outlineEpoch,
  type ExtractiveSummary,
  type SummaryMessage,
} from '@dirigent/memory-domain';
import type { EpochRecord } from '../adapters/postgres/epoch.repository';
import type { Row } from '../adapters/postgres/sql';
import { SUMMARIZER, type Summarizer } from './ports';

const SYSTEM = `Summarise one finished conversation of a Discord channel. Answer with JSON only:
{"summary": "<2-4 sentences>", "topics": ["<1-3 word tag>", ...], "lore": ["<a recurring pattern of this group, if any>"]}`;

/** The id of the n-th lore item an epoch's summary named. */
export const epochLoreId = (epochId: string, n: number) => `${epochId}-lore-${n}`.slice(0, 80);

export interface EpochSummary extends ExtractiveSummary {
  /** Recurring patterns of the group the model named (none offline). */
  lore: string[];
}

/** An archived message row as the summary reads it. */
export function summaryMessage(r: Row): SummaryMessage {
  return {
    messageId: r.message_id,
    authorId: r.author_id,
    authorName: r.author_name ?? undefined,
    authorIsBot: r.author_is_bot,
    content: r.content,
    at: new Date(r.created_at).getTime(),
    reactionCount: r.reaction_count ?? 0,
    replyCount: r.reply_count ?? 0,
    quoteCount: r.quote_count ?? 0,
  };
}

/**
 * What an epoch's row holds of its messages (their outline) and of what was told of them:
 * the same when the epoch closes and when it is written again after a deletion.
 */
export function epochRecord(messages: readonly SummaryMessage[], told: EpochSummary): EpochRecord {
  const outline = outlineEpoch(messages);
  return {
    startAt: new Date(outline.startAt).toISOString(),
    endAt: new Date(outline.endAt).toISOString(),
    messageCount: outline.messageCount,
    participants: outline.participants,
    summary: told.summary,
    topics: told.topics,
  };
}

/**
 * An epoch's summary, topics and lore from its messages (purpose `epoch-summarize`);
 * without a usable model answer, the extractive summary of its salient lines. Used when an
 * epoch closes and when a deletion makes it be written again without the deleted text.
 */
@Injectable()
export class EpochSummarizer {
  constructor(@Inject(SUMMARIZER) private readonly model: Summarizer) {}

  async summarize(guildId: string, messages: SummaryMessage[]): Promise<EpochSummary> {
    const offline = extractiveSummary(messages);
    const told = parseSummary(
      await this.model.complete(guildId, 'epoch-summarize', SYSTEM, epochTranscript(messages)),
    );
    if (!told) return { ...offline, lore: [] };
    return {
      summary: told.summary,
      topics: told.topics.length ? told.topics : offline.topics,
      lore: told.lore,
      sourceIds: offline.sourceIds,
    };
  }
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
