import { MAX_BURST_BEATS } from './output';

import type { MessageFeatures, RoomSignals } from '@dirigent/contracts';

/**
 * What the router reads of the room, as plain data: features of the message, the channel's
 * activity, who is present and what memory holds (their shapes are the contract's: they are
 * stored with each decision). The application gathers them (clock, queries); the scorer only
 * reads them, so a decision's inputs replay it exactly.
 */
export type { MemorySignals, MessageFeatures, RoomSignals } from '@dirigent/contracts';

export const RATE_WINDOW_MS = 5 * 60_000;
export const HUMANS_WINDOW_MS = 10 * 60_000;
/** Bot messages in a row after which the agents hold back (a mention still answers). */
export const MAX_BOT_RUN = 3;

const QUESTION =
  /\?\s*$|^(who|what|when|where|why|how|is|are|does|do|did|can|could|should|which)\b/im;
const DEBATE =
  /\b(disagree|wrong|actually|versus|vs\.?|better than|worse than|no way|debate|argue)\b/i;
const CALLBACK = /\b(remember|last time|back when|used to|again|before|that time)\b/i;
const ACTION =
  /\b(?:roll\s+(?:(?:a|me|us|the)\s+)?(?:\d*d\d+|dice|a\s+die)|(?:open|start|make|create|run|spin\s+up|add)\s+(?:us\s+)?(?:a\s+|an\s+)?(?:poll|thread|channel|role|archive)|archive\s+(?:the\s+)?(?:channel\s+)?#|pin\s+(?:that|this|it)|restructure|reorgani[sz]e)/i;
const RECALL =
  /\b(?:(?:do|does|did|can|could|don'?t|would)\s+(?:you|u|anyone|we|y'?all)\s+(?:still\s+)?(?:remember|recall)|remind\s+(?:me|us)|(?:what|where|when|which|who)\s+(?:did|have|had|do)\s+(?:we|you|they|i)\s+(?:\w+\s+)?(?:decide|decided|agree|agreed|settle|settled|say|said|mention|mentioned|pick|picked|choose|chose|plan|planned)\b|(?:remember|recall)\s+(?:what|when|where|who|how|which|if|whether)\b|\b(?:what|where|when|which|who)\b[^?.!]*\bagain\s*\?)/i;
const BANTER = /\b(lol|lmao|haha|roast|cope|skill issue|ratio)\b|😂|🤣/i;

/**
 * The features of a message's text. `addressedToOther`: the message mentions or replies to
 * someone, and this agent is not among them.
 *
 * @example
 * messageFeatures('remember the pizza thing?', { authorIsBot: false }).callback // true
 * messageFeatures('do you remember what we decided?').recall // true
 */
export function messageFeatures(
  content: string,
  o: { authorIsBot?: boolean; addressedToOther?: boolean } = {},
): MessageFeatures {
  return {
    length: content.length,
    question: QUESTION.test(content),
    debate: DEBATE.test(content),
    callback: CALLBACK.test(content),
    banter: BANTER.test(content),
    authorIsBot: o.authorIsBot ?? false,
    addressedToOther: o.addressedToOther ?? false,
    asksAction: ACTION.test(content),
    recall: RECALL.test(content),
    asks: !(o.authorIsBot ?? false) && QUESTION.test(content),
  };
}

/** A human's memory question: its turn must read what the question is about. */
export const asksMemory = (f: MessageFeatures | undefined): boolean =>
  f?.recall === true && !f.authorIsBot;

/** A message of the channel as the room reader sees it. */
export interface RoomMessage {
  authorId: string;
  authorIsBot: boolean;
  /** Epoch ms. */
  at: number;
}

/**
 * The channel's rolling rate, the humans active lately and the bot messages since the last
 * human one, from its recent messages (oldest first) at `now`.
 */
export function roomSignals(recent: readonly RoomMessage[], now: number): RoomSignals {
  let inRate = 0;
  const humans = new Set<string>();
  let botRun = 0;
  let humanSeen = false;
  for (let i = recent.length - 1; i >= 0; i--) {
    const m = recent[i];
    if (m.at > now) continue;
    if (now - m.at <= RATE_WINDOW_MS) inRate++;
    if (!m.authorIsBot && now - m.at <= HUMANS_WINDOW_MS) humans.add(m.authorId);
    if (!humanSeen) {
      if (m.authorIsBot) botRun++;
      else humanSeen = true;
    }
  }
  return {
    ratePerMin: Math.round((inRate / (RATE_WINDOW_MS / 60_000)) * 100) / 100,
    humansActive: humans.size,
    botRun,
  };
}

/**
 * Who is present: recent authors (newest first) and the channel's members, without the
 * agents themselves, at most `max`, sorted so the same room gives the same list.
 */
export function presentUsers(
  recentAuthors: readonly string[],
  members: readonly string[],
  exclude: ReadonlySet<string>,
  max = 100,
): string[] {
  const out = new Set<string>();
  for (const id of [...recentAuthors, ...members]) {
    if (out.size >= max) break;
    if (!exclude.has(id)) out.add(id);
  }
  return [...out].sort();
}

/**
 * How many messages a turn may post: what is left before the bots' run since the last human
 * message reaches `MAX_BOT_RUN` (a burst right after a human message has `MAX_BOT_RUN`
 * beats at most), at least one (a mentioned agent answers whatever the run).
 */
export function beatAllowance(room: RoomSignals | undefined): number {
  return Math.max(1, Math.min(MAX_BURST_BEATS, MAX_BOT_RUN - (room?.botRun ?? 0)));
}
