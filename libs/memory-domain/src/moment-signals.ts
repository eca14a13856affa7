import { contentWords } from './embedder';
import { disclosures } from './facts';
import { quotedPassages, type HighlightKind } from './moments';

/** An archived message with what the room did with it, as the moment extractor reads it. */
export interface RoomMessage {
  messageId: string;
  authorId: string;
  authorIsBot: boolean;
  content: string;
  /** Epoch milliseconds. */
  at: number;
  replyToMessageId?: string;
  reactionCount: number;
  replyCount: number;
  quoteCount: number;
}

/** One reason a message may be a moment; `score` ≥ 1 is enough on its own. */
export interface MomentSignal {
  kind: HighlightKind;
  score: number;
  /** A pattern hit that a model check (purpose `memory`) confirms when one is configured. */
  verify?: boolean;
}

export interface MomentPolicy {
  reactions: number;
  /** Distinct people replying (a reply to a reply counts half). */
  replies: number;
  quotes: number;
  /** Silence after a message that makes it the last word of a conversation. */
  silenceMs: number;
  /** Content words a last word needs to carry weight. */
  lastWordWords: number;
}

export const DEFAULT_MOMENT_POLICY: MomentPolicy = {
  reactions: 3,
  replies: 2,
  quotes: 1,
  silenceMs: 20 * 60_000,
  lastWordWords: 4,
};

/** Distinct people who reacted, against the threshold. */
export function reactionSignal(m: RoomMessage, p = DEFAULT_MOMENT_POLICY): MomentSignal | null {
  return m.reactionCount > 0 ? { kind: 'reaction', score: m.reactionCount / p.reactions } : null;
}

/**
 * Engagement in the reply graph of the window: distinct people (not the author) who replied
 * to the message, and half for each distinct person who replied to one of those replies;
 * never less than the stored reply counter says.
 */
export function replyGraphSignal(
  m: RoomMessage,
  window: readonly RoomMessage[],
  p = DEFAULT_MOMENT_POLICY,
): MomentSignal | null {
  const replies = window.filter((r) => r.replyToMessageId === m.messageId);
  const direct = new Set(replies.filter((r) => r.authorId !== m.authorId).map((r) => r.authorId));
  const replyIds = new Set(replies.map((r) => r.messageId));
  const second = new Set(
    window
      .filter((r) => r.replyToMessageId && replyIds.has(r.replyToMessageId))
      .map((r) => r.authorId)
      .filter((a) => a !== m.authorId && !direct.has(a)),
  );
  const score = Math.max((direct.size + 0.5 * second.size) / p.replies, m.replyCount / p.replies);
  return score > 0 ? { kind: 'replied', score } : null;
}

const quoting = new WeakMap<readonly RoomMessage[], { q: RoomMessage; passages: string[] }[]>();

/**
 * The window's messages that quote something, with their passages: read once per window
 * (a batch asks it of each of its messages, up to 500 against a window of 1,000).
 */
function quotingMessages(window: readonly RoomMessage[]) {
  let found = quoting.get(window);
  if (!found) {
    found = window
      .map((q) => ({ q, passages: quotedPassages(q.content) }))
      .filter((x) => x.passages.length);
    quoting.set(window, found);
  }
  return found;
}

/**
 * A message quoted later; the bot's own reply quoted by a person is a callback that
 * landed, worth more than an ordinary quote.
 */
export function quoteSignal(
  m: RoomMessage,
  window: readonly RoomMessage[],
  p = DEFAULT_MOMENT_POLICY,
): MomentSignal | null {
  let quotedBy = 0;
  for (const { q, passages } of quotingMessages(window)) {
    if (
      q.at > m.at &&
      q.authorId !== m.authorId &&
      !q.authorIsBot &&
      passages.some((passage) => m.content.includes(passage))
    ) {
      quotedBy++;
    }
  }
  const quotes = Math.max(m.quoteCount, quotedBy);
  if (!quotes) return null;
  return m.authorIsBot
    ? { kind: 'callback', score: (1 + 0.5 * (quotes - 1)) / p.quotes }
    : { kind: 'quote', score: quotes / p.quotes };
}

/** First-person statements that say something lasting about the speaker beyond the fact patterns. */
const SELF_PATTERNS: RegExp[] = [
  /\bi(?:'ve| have) (?:been|always|never) \w+/i,
  /\bmy (?:wife|husband|partner|girlfriend|boyfriend|kids?|son|daughter|mom|mum|dad|parents|brother|sister|dog|cat|boss)\b/i,
  /\bi (?:just )?(?:quit|got (?:fired|hired|married|engaged|divorced|promoted)|graduated|retired)\b/i,
  /\bi(?:'m| am) (?:moving|pregnant|learning|training for|recovering|allergic|vegan|vegetarian)\b/i,
  /\bi (?:hate|love|can'?t stand) \w+/i,
  /\bwhen i was (?:a kid|young|little|\d+)\b/i,
];

/** Self-disclosure by a person: the fact patterns, then the broader ones (to be verified). */
export function selfDisclosureSignal(m: RoomMessage): MomentSignal | null {
  if (m.authorIsBot) return null;
  if (disclosures(m.content).length) return { kind: 'self-disclosure', score: 1, verify: true };
  if (SELF_PATTERNS.some((re) => re.test(m.content))) {
    return { kind: 'self-disclosure', score: 1, verify: true };
  }
  return null;
}

/**
 * The time gap after a message: a substantive line followed by a long silence ended its
 * conversation (rhetorical weight). `nextAt` is the next message in the channel, or the
 * time of the look when none came yet.
 */
export function silenceSignal(
  m: RoomMessage,
  nextAt: number,
  p = DEFAULT_MOMENT_POLICY,
): MomentSignal | null {
  const gap = nextAt - m.at;
  if (m.authorIsBot || gap < p.silenceMs) return null;
  const words = contentWords(m.content).length;
  if (words < p.lastWordWords) return null;
  // The last word alone is a weak signal; with engagement or real substance, a moment.
  const score = 0.5 + 0.25 * Math.min(m.reactionCount, 2) + (words >= 12 ? 0.5 : 0);
  return { kind: 'last-word', score };
}

/** Whether a message falls in the sample of per-message model scoring (deterministic by id). */
export function sampledForScoring(messageId: string, rate: number): boolean {
  if (rate <= 0) return false;
  if (rate >= 1) return true;
  let h = 0x811c9dc5;
  for (let i = 0; i < messageId.length; i++) {
    h ^= messageId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) / 2 ** 32 < rate;
}

/**
 * Every cheap signal of a message in its window, cheapest first: reactions, the reply
 * graph, quotes (the bot's reply quoted), self-disclosure, the silence after it.
 */
export function momentSignals(
  m: RoomMessage,
  window: readonly RoomMessage[],
  now: number,
  p = DEFAULT_MOMENT_POLICY,
): MomentSignal[] {
  if (!m.content.trim()) return [];
  const next = window.find((x) => x.at > m.at && x.messageId !== m.messageId);
  return [
    reactionSignal(m, p),
    replyGraphSignal(m, window, p),
    quoteSignal(m, window, p),
    selfDisclosureSignal(m),
    silenceSignal(m, next?.at ?? now, p),
  ].filter((s): s is MomentSignal => s !== null);
}

const combined = (signals: readonly MomentSignal[]) => {
  const sorted = [...signals].sort((a, b) => b.score - a.score);
  return sorted.length
    ? sorted[0].score + 0.5 * sorted.slice(1).reduce((sum, x) => sum + x.score, 0)
    : 0;
};

/**
 * The verdict over a message's signals: the strongest names the kind; weaker ones add half
 * their score (two half-signals make a moment). Null below 1. `verify` is set when the
 * moment stands only on a pattern a model check should confirm: without that signal, the
 * rest would not make it.
 *
 * @example
 * judgeMoment([{ kind: 'reaction', score: 2 / 3 }, { kind: 'replied', score: 0.5 }]) // reaction, 0.92 → null
 * judgeMoment([{ kind: 'reaction', score: 2 / 3 }, { kind: 'replied', score: 1 }]) // replied, 1.33
 */
export function judgeMoment(signals: readonly MomentSignal[]): MomentSignal | null {
  const score = combined(signals);
  if (score < 1) return null;
  const strongest = [...signals].sort((a, b) => b.score - a.score)[0];
  const unverified = combined(signals.filter((x) => !x.verify)) < 1;
  return { kind: strongest.kind, score, ...(unverified ? { verify: true } : {}) };
}
