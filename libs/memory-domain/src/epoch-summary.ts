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
export function lineSalience(
  m: SummaryMessage,
  documentFrequency: Map<string, number>,
  words: readonly string[] = wordsOf(m).stems,
): number {
  if (!words.length) return 0;
  const shared = words.reduce((s, w) => s + Math.min((documentFrequency.get(w) ?? 1) - 1, 3), 0);
  const room = 1.5 * (m.reactionCount ?? 0) + 1.2 * (m.replyCount ?? 0) + 2 * (m.quoteCount ?? 0);
  const substance = Math.min(words.length, 12) / 4;
  const disclosure = disclosures(m.content).length ? 1.5 : 0;
  return room + shared / Math.sqrt(words.length) + substance + disclosure - (m.authorIsBot ? 1 : 0);
}

/** A line's content words, each word's stem, and its distinct stems. */
interface LineWords {
  words: string[];
  stemmed: string[];
  stems: string[];
}

/**
 * A line's words, split and stemmed once: the summary's salience, its document frequencies
 * and its topics all read them (splitting and stemming each line three times was most of an
 * epoch close's work on a 2,000-message epoch).
 */
function wordsOf(m: SummaryMessage): LineWords {
  const words = contentWords(m.content);
  const stemmed = words.map(stem);
  return { words, stemmed, stems: [...new Set(stemmed)] };
}

function documentFrequencies(lines: readonly LineWords[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const l of lines) for (const w of l.stems) df.set(w, (df.get(w) ?? 0) + 1);
  return df;
}

/** Words (as first written) recurring in at least two lines, most frequent first. */
export function epochTopics(messages: readonly SummaryMessage[], max = 3): string[] {
  const lines = messages.map(wordsOf);
  return topics(lines, documentFrequencies(lines), max);
}

function topics(lines: readonly LineWords[], df: Map<string, number>, max: number): string[] {
  const spelled = new Map<string, string>();
  for (const l of lines) {
    l.words.forEach((w, i) => {
      const s = l.stemmed[i];
      if (w.length > 2 && !/^\d+$/.test(w) && !spelled.has(s)) spelled.set(s, w);
    });
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
  const split = messages.map(wordsOf);
  const df = documentFrequencies(split);
  const picked = messages
    .map((m, i) => ({ m, i, s: lineSalience(m, df, split[i].stems) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, lines)
    .sort((a, b) => a.i - b.i)
    .map(({ m }) => `${m.authorName ?? m.authorId}: "${clip(m.content)}"`);
  return {
    summary: [head, picked.join(' ')].filter(Boolean).join(' '),
    topics: topics(split, df, 3),
    sourceIds: messages.map((m) => m.messageId),
  };
}
