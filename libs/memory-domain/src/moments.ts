import type { MemoryHighlightKind as HighlightKind } from '@dirigent/contracts';
import { disclosures } from './facts';

// Why a moment was kept: the wire's list (`@dirigent/contracts`), under the domain's name.
export {
  MEMORY_HIGHLIGHT_KINDS as HIGHLIGHT_KINDS,
  type MemoryHighlightKind as HighlightKind,
} from '@dirigent/contracts';

/** What the cheap signals know about one archived message. */
export interface MomentSignals {
  content: string;
  authorIsBot: boolean;
  /** Distinct users who reacted. */
  reactionCount: number;
  /** Messages that reply to it. */
  replyCount: number;
  /** Times another message quoted it. */
  quoteCount: number;
}

export interface MomentThresholds {
  reactions: number;
  replies: number;
  quotes: number;
}

export const DEFAULT_MOMENT_THRESHOLDS: MomentThresholds = { reactions: 3, replies: 2, quotes: 1 };

/** A highlight candidate: the message's text exactly as written, never a paraphrase. */
export interface MomentCandidate {
  kind: HighlightKind;
  rawText: string;
  score: number;
}

/**
 * "This just landed — does it deserve preserving?" from the cheapest signals first:
 * reactions, replies, quotes, then self-disclosure. Returns the strongest reason or null.
 *
 * @example
 * detectMoment({ content: 'lol', authorIsBot: false, reactionCount: 4, replyCount: 0, quoteCount: 0 })
 * // { kind: 'reaction', rawText: 'lol', score: 4 / 3 }
 */
export function detectMoment(
  s: MomentSignals,
  t: MomentThresholds = DEFAULT_MOMENT_THRESHOLDS,
): MomentCandidate | null {
  if (!s.content.trim()) return null;
  const ratios: [HighlightKind, number][] = [
    ['reaction', s.reactionCount / t.reactions],
    ['replied', s.replyCount / t.replies],
    ['quote', s.quoteCount / t.quotes],
  ];
  const [kind, score] = ratios.reduce((best, r) => (r[1] > best[1] ? r : best));
  if (score >= 1) return { kind, rawText: s.content, score };
  if (!s.authorIsBot && disclosures(s.content).length > 0) {
    return { kind: 'self-disclosure', rawText: s.content, score: 1 };
  }
  return null;
}

/**
 * The text a message quotes with Discord's `> ` markdown, joined per block, so that the
 * quoted message can be found in the archive. Quotes shorter than 8 characters are noise.
 */
export function quotedPassages(content: string): string[] {
  const out: string[] = [];
  let block: string[] = [];
  const flush = () => {
    const text = block.join('\n').trim();
    if (text.length >= 8) out.push(text);
    block = [];
  };
  for (const line of content.split('\n')) {
    const m = line.match(/^>>?>?\s?(.*)$/);
    if (m) block.push(m[1]);
    else flush();
  }
  flush();
  return out;
}
