import { splitForDiscord } from '@dirigent/contracts';
import type { Disposition, ResearchPersona } from './dimensions';

export const MAX_BURST_BEATS = 6;

export interface Beat {
  text: string;
  isCorrection?: boolean;
}

const CORRECTION = /^(wait|actually|no wait|correction|scratch that|hm+,? actually)\b/i;

/**
 * A burst's beats: one per paragraph (blank lines), at most `max` (six; the rest joins the
 * last).
 */
export function splitBeats(text: string, max = MAX_BURST_BEATS): Beat[] {
  const cap = Math.max(1, Math.min(max, MAX_BURST_BEATS));
  const parts = text
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length > cap) {
    const head = parts.slice(0, cap - 1);
    parts.splice(0, parts.length, ...head, parts.slice(cap - 1).join('\n\n'));
  }
  return parts.map((p, i) =>
    i > 0 && CORRECTION.test(p) ? { text: p, isCorrection: true } : { text: p },
  );
}

/** Banned phrases are removed from the output (case-insensitive), whatever the model wrote. */
export function enforceBannedPhrases(
  text: string,
  banned: readonly string[] = [],
): { text: string; removed: string[] } {
  let out = text;
  const removed: string[] = [];
  for (const phrase of banned) {
    const p = phrase.trim();
    if (!p) continue;
    const re = new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
    if (re.test(out)) {
      removed.push(p);
      out = out.replace(re, '');
    }
  }
  if (!removed.length) return { text, removed };
  out = out
    .split('\n')
    .map((l) =>
      l
        .replace(/[ \t]{2,}/g, ' ')
        .replace(/\s+([,.!?;:])/g, '$1')
        .trim(),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { text: out, removed };
}

/**
 * The planned beats of a shape from the synthesizer's text (after banned phrases); a burst
 * has at most `maxBeats` (the room's allowance, `beatAllowance`). A beat longer than a
 * Discord message is cut into as many beats as it takes messages: each beat is one message,
 * so each takes its own place in the bots' run and its delivery is recognised by its text.
 */
export function shapeBeats(
  shape: Disposition['outputShape'],
  text: string,
  maxBeats = MAX_BURST_BEATS,
): Beat[] {
  return shaped(shape, text, maxBeats).flatMap((b) =>
    splitForDiscord(b.text).map((part, i) => (i === 0 ? { ...b, text: part } : { text: part })),
  );
}

function shaped(shape: Disposition['outputShape'], text: string, maxBeats: number): Beat[] {
  const clean = text.trim();
  if (!clean) return [];
  switch (shape) {
    case 'silent':
    case 'react-only':
      return [];
    case 'single-line':
      return [
        {
          text: clean
            .split(/\s*\n\s*/)
            .filter(Boolean)
            .join(' '),
        },
      ];
    case 'multi-line':
      return [{ text: clean }];
    case 'burst':
      return splitBeats(clean, maxBeats);
    default: {
      const never: never = shape;
      return never;
    }
  }
}

const REACTIONS: Record<string, readonly string[]> = {
  playful: ['😄', '🙌', '✨'],
  sharp: ['👀', '🔥'],
  sincere: ['🙏', '💯'],
  contrarian: ['🤔'],
  nostalgic: ['🥹'],
  deadpan: ['👍', '🙂'],
  encouraging: ['💪', '👏'],
  indifferent: ['👍'],
  'present-reaction': ['👀', '😂', '🔥', '👍'],
  observational: ['👀'],
  'fact-drop': ['☝️'],
};

/** A react-only turn's emoji: by voice, picked with a draw in [0, 1). */
export function reactionFor(voice: Disposition['voice'], draw: number): string {
  const set = REACTIONS[voice] ?? ['👍'];
  return set[Math.min(set.length - 1, Math.floor(draw * set.length))];
}

const HUMOROUS = new Set(['playful', 'sharp']);

/**
 * The fan-out plan: which research personas fire, from the voice and search posture.
 * Model-free shapes and low-reasoning turns without a search posture fire none.
 */
export function personasFor(d: Disposition): ResearchPersona[] {
  if (d.outputShape === 'silent' || d.outputShape === 'react-only') return [];
  if (d.searchPosture === 'none' && d.reasoningDepth === 'low') return [];
  const out = new Set<ResearchPersona>();
  switch (d.searchPosture) {
    case 'person-deep':
      out.add('participant-profiler');
      break;
    case 'callback-hunt':
      out.add('memory-archeologist').add('participant-profiler');
      break;
    case 'broad-scan':
      out.add('topic-researcher').add('memory-archeologist');
      break;
    case 'contradiction-hunt':
      out.add('topic-researcher');
      break;
    case 'setup-payoff':
      out.add('memory-archeologist');
      break;
    case 'none':
      out.add('topic-researcher');
      break;
  }
  if (HUMOROUS.has(d.voice)) out.add('comedian');
  if (d.voice === 'contrarian' || (d.voice === 'sharp' && d.searchPosture === 'contradiction-hunt'))
    out.add('contrarian');
  return [...out];
}

/** The memory lens each research persona reads through. */
export const PERSONA_LENS: Record<ResearchPersona, string> = {
  'memory-archeologist': 'callback-primed',
  'participant-profiler': 'live+dossiers',
  'topic-researcher': 'archive-topic-deep',
  comedian: 'live',
  contrarian: 'contrasting',
};

/** The synthesizer's purpose by reasoning depth. */
export function synthPurpose(
  depth: Disposition['reasoningDepth'],
): 'synth-low' | 'synth-mid' | 'synth-high' {
  return depth === 'high' ? 'synth-high' : depth === 'medium' ? 'synth-mid' : 'synth-low';
}
