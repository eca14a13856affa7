import type { RoomSignalKind, SignalKind } from '@dirigent/contracts';
import { isMentioned, type AgentPersona, type InboundMessage } from './agent';
import type { PersonaSignal } from './persona';

// The signals read from the room rather than given by one member (docs/architecture.md,
// "Learning signals"): a later message quoting or referring back to an agent's line, a
// line the room ignored, and a silent or react-only turn judged after the window. Pure:
// the router hands in what the channel's durable history holds.

/** How many consecutive words of a line a later message repeats to quote it. */
export const QUOTE_NGRAM = 5;
/** A line shorter than this (in words) is never taken as quoted by a shared n-gram. */
export const QUOTE_MIN_WORDS = 3;

/**
 * How far a signal kind steps the adjustment, as a multiple of `learning.rate`: one step each
 * (the contract's "each step is `rate`"). Silence cannot outvote speaking by its number: a
 * channel holds at most one pending quiet-turn judgement per agent (`JudgeTurns`).
 */
export const SIGNAL_STEP: Record<SignalKind, number> = {
  reaction: 1,
  reply: 1,
  quote: 1,
  rebuke: 1,
  ignored: 1,
  'silent-ok': 1,
  'silent-missed': 1,
};

const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[@#][!&]?\d+>/g, ' ')
    .split(/[^\p{L}\p{N}']+/u)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter(Boolean);

/**
 * Whether `text` repeats a substantial part of `line`: `QUOTE_NGRAM` consecutive words of it
 * (the whole line when shorter, from `QUOTE_MIN_WORDS` words), case and punctuation aside.
 *
 * @example
 * quotesLine('the moon is a very large cheese wheel', 'lol "a very large cheese wheel"') // true
 */
export function quotesLine(line: string, text: string): boolean {
  const l = words(line);
  const n = Math.min(QUOTE_NGRAM, l.length);
  if (n < QUOTE_MIN_WORDS) return false;
  const t = ` ${words(text).join(' ')} `;
  for (let i = 0; i + n <= l.length; i++)
    if (t.includes(` ${l.slice(i, i + n).join(' ')} `)) return true;
  return false;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SAID = '(?:said|says|say|mentioned|suggested|put it|wrote|meant|pointed out)';

/**
 * Whether `text` refers back to what the agent said: "like Dit said", "as dit put it",
 * "what Dit said", "Dit was right", "Dit's point".
 *
 * @example
 * refersBack(['Dit'], 'honestly like dit said, just ship it') // true
 */
export function refersBack(names: readonly string[], text: string): boolean {
  return names
    .filter((n) => n.trim().length >= 2)
    .some((n) => {
      const name = `@?${escape(n)}`;
      return new RegExp(
        `(?:\\b(?:like|as|what|whatever)\\s+${name}\\s+(?:just\\s+)?${SAID}\\b)|` +
          `(?:\\b${name}\\s+(?:was|is|is so|was so)\\s+right\\b)|` +
          `(?:\\b${name}['’]s\\s+(?:point|idea|line|joke|take|answer)\\b)`,
        'iu',
      ).test(text);
    });
}

/** A message of the channel after the turn, as the durable history holds it. */
export type WindowMessage = Pick<
  InboundMessage,
  | 'messageId'
  | 'authorId'
  | 'authorIsBot'
  | 'content'
  | 'mentions'
  | 'webhookId'
  | 'replyToMessageId'
>;

/** What the room did in the window after a turn. */
export interface TurnWindow {
  /** The agent, for its mentions and names. */
  agent: AgentPersona;
  /** The turn's lines (none: a silent or react-only turn). */
  sent: readonly { messageId: string; text: string }[];
  /** The channel's messages in the window, oldest first (bots' included: left out here). */
  messages: readonly WindowMessage[];
  /** Messages humans reacted to in the window. */
  reactedTo: ReadonlySet<string>;
  /** How many human messages count as the room going on ("humans kept talking"). */
  minMessages: number;
}

/** The room's judgement of a turn, or null when the room says nothing either way. */
export type TurnJudgement = {
  signal: RoomSignalKind;
  polarity: PersonaSignal;
} | null;

/** Whether `m` engages with the turn's lines: replies to, quotes or refers back to them, or names the agent. */
export function engages(m: WindowMessage, agent: AgentPersona, sent: TurnWindow['sent']): boolean {
  if (m.replyToMessageId && sent.some((s) => s.messageId === m.replyToMessageId)) return true;
  if (isMentioned(agent, { content: m.content, mentions: m.mentions })) return true;
  return sent.some((s) => quotesLine(s.text, m.content));
}

/**
 * The room's verdict on a turn once its window closed. A turn that spoke is `ignored`
 * (negative) when at least `minMessages` human messages followed and none engaged with its
 * lines and no human reacted to them. A silent or react-only turn is `silent-missed`
 * (negative) when a human asked for the agent (named or mentioned it) in the window, else
 * `silent-ok` (positive) when at least `minMessages` human messages followed. A room that
 * went quiet says nothing either way.
 *
 * @example
 * judgeTurn({ agent, sent: [], messages: [a, b], reactedTo: new Set(), minMessages: 2 })
 * // { signal: 'silent-ok', polarity: 'positive' }
 */
export function judgeTurn(w: TurnWindow): TurnJudgement {
  const humans = w.messages.filter((m) => !m.authorIsBot && !m.webhookId);
  if (w.sent.length) {
    if (w.sent.some((s) => w.reactedTo.has(s.messageId))) return null;
    if (humans.some((m) => engages(m, w.agent, w.sent))) return null;
    return humans.length >= w.minMessages ? { signal: 'ignored', polarity: 'negative' } : null;
  }
  if (humans.some((m) => isMentioned(w.agent, { content: m.content, mentions: m.mentions })))
    return { signal: 'silent-missed', polarity: 'negative' };
  return humans.length >= w.minMessages ? { signal: 'silent-ok', polarity: 'positive' } : null;
}
