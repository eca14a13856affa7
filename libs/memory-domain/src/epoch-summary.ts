import { contentWords, stem } from './embedder';
import type { EpochMessage } from './epochs';
import { disclosures } from './facts';

/** An epoch's message with what the room did with it (the salience of a line). */
export interface SummaryMessage extends EpochMessage {
  authorIsBot?: boolean;
  reactionCount?: number;
  replyCount?: number;
  quoteCount?: number;
}

export interface ExtractiveSummary {
  summary: string;
  topics: string[];
  /** The messages the summary and topics drew on (counts and participants: all of them). */
  sourceIds: string[];
}

const LINE_CHARS = 160;

/**
 * How much a line says about its conversation: what the room did with it (reactions,
 * replies, quotes), how much it shares with the other lines (its words recur), how much it
 * says at all, and a self-disclosure. Pure: the same lines give the same scores.
 */
export function lineSalience(m: SummaryMessage, documentFrequency: Map<string, number>): number {
  const words = [...new Set(contentWords(m.content).map(stem))];
  if (!words.length) return 0;
  const shared = words.reduce((s, w) => s + Math.min((documentFrequency.get(w) ?? 1) - 1, 3), 0);
  const room = 1.5 * (m.reactionCount ?? 0) + 1.2 * (m.replyCount ?? 0) + 2 * (m.quoteCount ?? 0);
  const substance = Math.min(words.length, 12) / 4;
  const disclosure = disclosures(m.content).length ? 1.5 : 0;
  return room + shared / Math.sqrt(words.length) + substance + disclosure - (m.authorIsBot ? 1 : 0);
}

function documentFrequencies(messages: readonly SummaryMessage[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const m of messages) {
    for (const w of new Set(contentWords(m.content).map(stem))) df.set(w, (df.get(w) ?? 0) + 1);
  }
  return df;
}

/** Words (as first written) recurring in at least two lines, most frequent first. */
export function epochTopics(messages: readonly SummaryMessage[], max = 3): string[] {
  const df = documentFrequencies(messages);
  const spelled = new Map<string, string>();
  for (const m of messages) {
    for (const w of contentWords(m.content)) {
      if (w.length > 2 && !/^\d+$/.test(w) && !spelled.has(stem(w))) spelled.set(stem(w), w);
    }
  }
  return [...df]
    .filter(([s, n]) => n >= 2 && spelled.has(s))
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, max)
    .map(([s]) => spelled.get(s)!);
}

const clip = (text: string) => {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= LINE_CHARS ? oneLine : `${oneLine.slice(0, LINE_CHARS - 1)}…`;
};

/**
 * The offline summary of an epoch: who talked and how much, then its most salient lines
 * verbatim with attribution, in the order they were said; topics are the words that
 * recur. It is a pure function of the messages given, so a summary redone without a
 * deleted message never holds its text.
 *
 * @example
 * extractiveSummary([{ messageId: '1', authorId: 'a', authorName: 'Ann', content: 'hike sunday?', at: 0 }])
 * // { summary: '1 message from 1 person. Ann: "hike sunday?"', topics: [], sourceIds: ['1'] }
 */
export function extractiveSummary(
  messages: readonly SummaryMessage[],
  lines = 3,
): ExtractiveSummary {
  const people = new Set(messages.map((m) => m.authorId)).size;
  const head = `${messages.length} ${messages.length === 1 ? 'message' : 'messages'} from ${people} ${
    people === 1 ? 'person' : 'people'
  }.`;
  const df = documentFrequencies(messages);
  const picked = messages
    .map((m, i) => ({ m, i, s: lineSalience(m, df) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, lines)
    .sort((a, b) => a.i - b.i)
    .map(({ m }) => `${m.authorName ?? m.authorId}: "${clip(m.content)}"`);
  return {
    summary: [head, picked.join(' ')].filter(Boolean).join(' '),
    topics: epochTopics(messages),
    sourceIds: messages.map((m) => m.messageId),
  };
}
