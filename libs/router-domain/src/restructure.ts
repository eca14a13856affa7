/**
 * The steps of an approved `propose_restructure`, read from the plain words a model or a
 * member wrote (`create #garden-planning`, `rename #memes to #fun`, `archive #old-events`,
 * `move #fun to Social`, `create role gardeners`). Pure: the steward runs them in order,
 * each journalled (docs/architecture.md, "Steward").
 */

export type RestructureStep =
  | { kind: 'create_channel'; name: string }
  | { kind: 'rename_channel'; from: string; to: string }
  | { kind: 'archive_channel'; name: string }
  | { kind: 'move_channel'; name: string; category: string }
  | { kind: 'create_role'; name: string };

/** A step read from its words, or why it cannot be run. */
export type ParsedStep = { ok: true; step: RestructureStep } | { ok: false; error: string };

/** A channel name as Discord keeps a text channel's: lower case, words joined by `-`. */
export function channelSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/^#/, '')
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 100);
}

const CHANNEL = String.raw`(?:the\s+)?(?:channel\s+)?(?:called\s+|named\s+)?#?([\w-]{1,100})(?:\s+channel)?`;
const CREATE_ROLE =
  /^(?:create|make|add)\s+(?:a\s+|the\s+)?role\s+(?:(?:called|named|for)\s+)?(?:the\s+)?@?(.{1,100})$/i;
const CREATE = new RegExp(
  String.raw`^(?:create|make|add|open)\s+(?:a\s+)?(?:new\s+)?${CHANNEL}$`,
  'i',
);
const RENAME = new RegExp(
  String.raw`^rename\s+${CHANNEL}\s+(?:to|as|into)\s+#?([\w-]{1,100})$`,
  'i',
);
const ARCHIVE = new RegExp(String.raw`^archive\s+${CHANNEL}$`, 'i');
const MOVE = new RegExp(
  String.raw`^move\s+${CHANNEL}\s+(?:to|into|under)\s+(?:the\s+)?(?:category\s+)?(.{1,100}?)(?:\s+category)?$`,
  'i',
);

/**
 * One step's words → the step. `create #a` / `create channel a`, `rename #a to b`,
 * `archive #a`, `move #a to Category`, `create role gardeners` (a role without permissions).
 *
 * @example
 * parseRestructureStep('rename #memes to #fun') // → { ok: true, step: { kind: 'rename_channel', from: 'memes', to: 'fun' } }
 */
export function parseRestructureStep(text: string): ParsedStep {
  const t = text
    .trim()
    .replace(/[.!]+$/, '')
    .replace(/\s+/g, ' ');
  let m = CREATE_ROLE.exec(t);
  if (m) {
    const name = m[1].trim().replace(/^@/, '');
    return name ? { ok: true, step: { kind: 'create_role', name } } : unreadable(text);
  }
  m = RENAME.exec(t);
  if (m)
    return named({ kind: 'rename_channel', from: channelSlug(m[1]), to: channelSlug(m[2]) }, text);
  m = ARCHIVE.exec(t);
  if (m) return named({ kind: 'archive_channel', name: channelSlug(m[1]) }, text);
  m = MOVE.exec(t);
  if (m)
    return named(
      { kind: 'move_channel', name: channelSlug(m[1]), category: m[2].trim().slice(0, 100) },
      text,
    );
  m = CREATE.exec(t);
  if (m) return named({ kind: 'create_channel', name: channelSlug(m[1]) }, text);
  return unreadable(text);
}

function named(step: RestructureStep, text: string): ParsedStep {
  const names = Object.values(step).filter((v) => v !== step.kind);
  return names.every(Boolean) ? { ok: true, step } : unreadable(text);
}

const unreadable = (text: string): ParsedStep => ({
  ok: false,
  error: `I can't run "${text.slice(0, 100)}": a step is create, rename, archive or move a channel, or create a role`,
});

/** The step in a few words, for the mod channel. */
export function restructureStepText(s: RestructureStep): string {
  switch (s.kind) {
    case 'create_channel':
      return `create #${s.name}`;
    case 'rename_channel':
      return `rename #${s.from} to #${s.to}`;
    case 'archive_channel':
      return `archive #${s.name}`;
    case 'move_channel':
      return `move #${s.name} to ${s.category}`;
    case 'create_role':
      return `create the role ${s.name}`;
    default: {
      const never: never = s;
      return never;
    }
  }
}

/** The name an archived channel gets, so the archive reads as one. */
export const archivedName = (name: string) =>
  name.startsWith('archived-') ? name : `archived-${name}`.slice(0, 100);
