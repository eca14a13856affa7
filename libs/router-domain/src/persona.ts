import type { AgentPersona } from './agent';
import type { Persona, PersonaContent, PersonaRange as Range } from '@dirigent/contracts';
import type { Voice } from './dimensions';
import { enforceBannedPhrases } from './output';

// The persona's shape is the wire's (`@dirigent/contracts`); here are its rules.
export type { Persona, PersonaContent, PersonaRange as Range } from '@dirigent/contracts';

/** What `upsert` merges over the active version: any top-level field, nested ones by key. */
export interface PersonaPatch {
  voices?: { eligible?: Voice[]; never?: Voice[] };
  bannedPhrases?: string[];
  neverDo?: string[];
  toneBounds?: { formality?: Range; energy?: Range } | null;
  dispositionWeights?: Record<string, number>;
  learning?: { enabled?: boolean; rate?: number; bounds?: Range };
}

export const DEFAULT_LEARNING: Persona['learning'] = {
  enabled: true,
  rate: 0.05,
  bounds: [0.5, 2],
};
const DEFAULT_TONE: Range = [0, 1];

/** The seed content of an agent from the router's YAML (its first start only). */
export function seedPersona(
  agent: AgentPersona,
  extra: {
    neverVoices?: Voice[];
    neverDo?: string[];
    toneBounds?: { formality?: Range; energy?: Range };
    learning?: Partial<PersonaContent['learning']>;
  } = {},
): PersonaContent {
  const tone = extra.toneBounds;
  return {
    voices: { eligible: [...(agent.voices ?? [])], never: [...(extra.neverVoices ?? [])] },
    bannedPhrases: [...(agent.bannedPhrases ?? [])],
    neverDo: [...(extra.neverDo ?? [])],
    ...(tone
      ? {
          toneBounds: {
            formality: tone.formality ?? DEFAULT_TONE,
            energy: tone.energy ?? DEFAULT_TONE,
          },
        }
      : {}),
    dispositionWeights: { ...(agent.weights ?? {}) },
    learning: { ...DEFAULT_LEARNING, ...defined(extra.learning) },
  };
}

/** The content of a persona with fixed key order (sorted weights), as stored and compared. */
export function personaContent(p: PersonaContent): PersonaContent {
  return {
    voices: { eligible: [...p.voices.eligible], never: [...p.voices.never] },
    bannedPhrases: [...p.bannedPhrases],
    neverDo: [...p.neverDo],
    ...(p.toneBounds
      ? {
          toneBounds: {
            formality: [...p.toneBounds.formality] as Range,
            energy: [...p.toneBounds.energy] as Range,
          },
        }
      : {}),
    dispositionWeights: Object.fromEntries(
      Object.keys(p.dispositionWeights)
        .sort()
        .map((k) => [k, p.dispositionWeights[k]]),
    ),
    learning: {
      enabled: p.learning.enabled,
      rate: p.learning.rate,
      bounds: [...p.learning.bounds] as Range,
    },
  };
}

/**
 * `upsert`: the given fields over the active content. `voices`, `learning`, `toneBounds`
 * and `dispositionWeights` merge by key; `toneBounds: null` removes the bounds.
 */
export function mergePersona(active: PersonaContent, given: PersonaPatch): PersonaContent {
  const patch = defined(given) as PersonaPatch;
  const tone =
    patch.toneBounds === null
      ? undefined
      : patch.toneBounds
        ? {
            formality: patch.toneBounds.formality ?? active.toneBounds?.formality ?? DEFAULT_TONE,
            energy: patch.toneBounds.energy ?? active.toneBounds?.energy ?? DEFAULT_TONE,
          }
        : active.toneBounds;
  return personaContent({
    voices: { ...active.voices, ...defined(patch.voices) },
    bannedPhrases: patch.bannedPhrases ?? active.bannedPhrases,
    neverDo: patch.neverDo ?? active.neverDo,
    ...(tone ? { toneBounds: tone } : {}),
    dispositionWeights: { ...active.dispositionWeights, ...(patch.dispositionWeights ?? {}) },
    learning: { ...active.learning, ...defined(patch.learning) },
  });
}

/** The object's own keys whose value is not undefined (a payload instance defines them all). */
function defined<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(
    Object.entries(o ?? {}).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

/** What differs between two contents: `{ field: { from, to } }` per top-level field. */
export function personaChanges(
  from: PersonaContent | null,
  to: PersonaContent,
): Record<string, { from: unknown; to: unknown }> {
  const a = (from ? personaContent(from) : {}) as Record<string, unknown>;
  const b = personaContent(to) as unknown as Record<string, unknown>;
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k]))
      out[k] = { from: a[k] ?? null, to: b[k] ?? null };
  }
  return out;
}

/**
 * Field errors of a content (beyond the wire's types): ranges ordered and within 0..1 for
 * tone, learning bounds positive and ordered, weights ≥ 0, a rate in (0, 1], a voice not
 * both eligible and never.
 */
export function personaProblems(p: PersonaContent): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const range = (field: string, r: Range, lo: number, hi: number) => {
    if (!(r[0] <= r[1])) out.push({ field, message: `${field} must be [lo, hi] with lo ≤ hi` });
    else if (r[0] < lo || r[1] > hi)
      out.push({ field, message: `${field} must lie within [${lo}, ${hi}]` });
  };
  if (p.toneBounds) {
    range('toneBounds.formality', p.toneBounds.formality, 0, 1);
    range('toneBounds.energy', p.toneBounds.energy, 0, 1);
  }
  range('learning.bounds', p.learning.bounds, 0, 1000);
  if (!(p.learning.rate > 0 && p.learning.rate <= 1))
    out.push({ field: 'learning.rate', message: 'learning.rate must be in (0, 1]' });
  for (const [id, w] of Object.entries(p.dispositionWeights)) {
    if (!(Number.isFinite(w) && w >= 0 && w <= 1000))
      out.push({
        field: `dispositionWeights.${id}`,
        message: `dispositionWeights.${id} must be 0..1000`,
      });
  }
  const both = p.voices.eligible.filter((v) => p.voices.never.includes(v));
  if (both.length)
    out.push({
      field: 'voices',
      message: `voices ${both.join(', ')} cannot be both eligible and never`,
    });
  return out;
}

/** The agent as a turn sees it: its identity with the active persona's constraints. */
export function withPersona(agent: AgentPersona, p: Persona): AgentPersona {
  return {
    ...agent,
    voices: p.voices.eligible,
    neverVoices: p.voices.never,
    bannedPhrases: p.bannedPhrases,
    neverDo: p.neverDo,
    toneBounds: p.toneBounds,
    weights: p.dispositionWeights,
    personaVersion: p.version,
  };
}

export type PersonaSignal = 'positive' | 'negative';

const POSITIVE_EMOJI = new Set(
  '👍 👏 🙌 ❤️ ❤ 💯 🔥 😂 🤣 😆 😄 😁 😊 🥰 😍 🎉 ⭐ 🌟 ✅ 💖 💜 💙 💚 🫶 😎 🏆 👌 🤝 💡'.split(
    ' ',
  ),
);
const NEGATIVE_EMOJI = new Set(
  '👎 😒 🙄 😡 😠 🤬 💩 🤮 🤢 😬 😐 😑 🥱 😴 ❌ 🚫 🛑 😕 🙁 ☹️ ☹ 😤'.split(' '),
);

/** A reaction's signal: a positive or negative emoji; others (custom, neutral) say nothing. */
export function reactionSignal(emoji: string): PersonaSignal | null {
  const e = emoji.replace(/[\u{1F3FB}-\u{1F3FF}]/gu, '').trim();
  if (POSITIVE_EMOJI.has(e)) return 'positive';
  if (NEGATIVE_EMOJI.has(e)) return 'negative';
  return null;
}

const NEGATIVE_REPLY =
  /\b(stop|shut up|not funny|unfunny|cringe|annoying|nobody asked|no one asked|wrong|bad bot|go away|boring|useless|worst|stfu|ugh)\b|👎|🙄/iu;

/**
 * A human's reply to the agent's message: engagement is positive unless it reads as a
 * rebuke (a small, explicit lexicon; no model call on the learning path).
 */
export function replySignal(text: string): PersonaSignal {
  return NEGATIVE_REPLY.test(text) ? 'negative' : 'positive';
}

/**
 * The next weight of `dispositionId` after a signal: ± `rate`, clamped to `bounds` (an
 * absent weight starts at 1). Null when learning is off or the weight cannot move further.
 */
export function learnedWeight(
  p: Pick<PersonaContent, 'dispositionWeights' | 'learning'>,
  dispositionId: string,
  signal: PersonaSignal,
): { from: number; to: number } | null {
  if (!p.learning.enabled) return null;
  const from = p.dispositionWeights[dispositionId] ?? 1;
  const [lo, hi] = p.learning.bounds;
  const raw = from + (signal === 'positive' ? p.learning.rate : -p.learning.rate);
  const to = Math.round(Math.min(hi, Math.max(lo, raw)) * 1e6) / 1e6;
  return to === from ? null : { from, to };
}

/**
 * A never-do entry written as `/pattern/flags` is also checked on the output: a reply
 * matching one is suppressed (the others are instructions to the synthesizer only).
 * Returns the first entry the text breaks, or null.
 */
export function neverDoBroken(text: string, neverDo: readonly string[] = []): string | null {
  for (const rule of neverDo) {
    const m = /^\/(.+)\/([a-z]*)$/s.exec(rule.trim());
    if (!m) continue;
    let re: RegExp;
    try {
      re = new RegExp(m[1], m[2].replace(/[gy]/g, ''));
    } catch {
      continue;
    }
    if (re.test(text)) return rule;
  }
  return null;
}

/** A never-do entry's text for the synthesizer (a `/pattern/` rule as "never write …"). */
export const neverDoText = (rule: string) => {
  const m = /^\/(.+)\/[a-z]*$/s.exec(rule.trim());
  return m ? `never write anything matching ${m[1]}` : rule.trim();
};

/** What the persona's output gates make of a reply: the text to send, or why nothing is sent. */
export type GatedReply = { text: string } | { suppressed: 'never-do' | 'empty'; rule?: string };

/**
 * A reply through the persona's output gates, whoever wrote it (the synthesizer or the
 * orchestrator): banned phrases are cut out and the rest is sent; a reply that breaks a
 * never-do pattern, or has nothing left once they are cut, is suppressed.
 *
 * @example
 * gateReply('As an AI I think pizza wins.', { bannedPhrases: ['as an AI'] }) // { text: 'I think pizza wins.' }
 */
export function gateReply(
  text: string,
  persona: Pick<AgentPersona, 'bannedPhrases' | 'neverDo'>,
): GatedReply {
  const clean = enforceBannedPhrases(text, persona.bannedPhrases).text;
  const rule = neverDoBroken(clean, persona.neverDo);
  if (rule) return { suppressed: 'never-do', rule };
  if (!/[\p{L}\p{N}]/u.test(clean)) return { suppressed: 'empty' };
  return { text: clean };
}
