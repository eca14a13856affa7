import type { Voice } from './dimensions';

/** A built-in agent and its persona constraints (the SOUL surface, not runtime prose). */
export interface AgentPersona {
  id: string;
  name: string;
  /** Its own bot account; without one it speaks through a webhook identity. */
  discordUserId?: string;
  /** Eligible voices; absent or empty: all. */
  voices?: readonly Voice[];
  bannedPhrases?: readonly string[];
  /** Voices never chosen (the persona's `voices.never`). */
  neverVoices?: readonly Voice[];
  /** Instructions to the synthesizer; `/pattern/` entries are also checked on the output. */
  neverDo?: readonly string[];
  /** 0..1 ranges the synthesizer keeps to. */
  toneBounds?: { formality: readonly [number, number]; energy: readonly [number, number] };
  /** Per-disposition multipliers over the disposition's own weight. */
  weights?: Readonly<Record<string, number>>;
  orchestrator?: boolean;
  /** The persona version these constraints come from (absent: the YAML, no database). */
  personaVersion?: number;
}

/** What the router sees of an inbound message. */
export interface InboundMessage {
  messageId: string;
  authorId: string;
  authorIsBot: boolean;
  content: string;
  mentions?: readonly string[];
  webhookId?: string;
  replyToMessageId?: string;
}

export type PreflightVerdict =
  | { proceed: true; mentioned: boolean }
  | { proceed: false; reason: 'self' | 'bot-outside-managed' };

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Addressable = Pick<AgentPersona, 'id' | 'name' | 'discordUserId'>;

/** The agent's Discord mention tokens (`<@id>`, `<@!id>`); none without its own account. */
const mentionTokens = (agent: Addressable) =>
  agent.discordUserId ? [`<@${agent.discordUserId}>`, `<@!${agent.discordUserId}>`] : [];

/** The names it answers to as a word (its name and id, two characters or more). */
const namesOf = (agent: Addressable) =>
  [agent.name, agent.id].filter((n) => n && n.trim().length >= 2);

/** An explicit mention: the agent's user id in `mentions` or `<@id>`, or its name as a word. */
export function isMentioned(agent: AgentPersona, m: Pick<InboundMessage, 'content' | 'mentions'>) {
  if (agent.discordUserId && m.mentions?.includes(agent.discordUserId)) return true;
  if (mentionTokens(agent).some((t) => m.content.includes(t))) return true;
  return namesOf(agent).some((n) =>
    new RegExp(`(^|[^\\p{L}\\p{N}_])@?${escape(n)}(?![\\p{L}\\p{N}_])`, 'iu').test(m.content),
  );
}

/** Words a question starts with, after a bare-name address ("Dit what did we pick?"). */
const ASKS = '(?:what|where|when|who|why|how|which|do|does|did|can|could|is|are|will|would)';

/**
 * The message without the agent's mention (`<@id>`, `@Name`) or its name as an address
 * ("Dit, …", "… , Dit?"), neither of which is part of a task or of what a question asks:
 * searched as it stands, the name would find what the agent said.
 *
 * @example
 * withoutMention('Dit, where did I say the picnic was?', dit) // 'where did I say the picnic was?'
 */
export function withoutMention(content: string, agent: Addressable): string {
  let text = content;
  for (const t of mentionTokens(agent)) text = text.split(t).join(' ');
  for (const n of namesOf(agent)) {
    text = text
      .replace(new RegExp(`(^|\\s)@${escape(n)}(?![\\p{L}\\p{N}_])[,:]?`, 'giu'), '$1')
      .replace(new RegExp(`^\\s*${escape(n)}(?:\\s*[,:]\\s*|\\s+(?=${ASKS}\\b))`, 'iu'), '')
      .replace(new RegExp(`,\\s*${escape(n)}(?=\\s*[?!.]*\\s*$)`, 'iu'), '');
  }
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Before any model call: the agent never answers itself (`fromSelf` is the caller's
 * knowledge of its webhook messages); other bots only where turns are managed.
 */
export function preflight(
  agent: AgentPersona,
  m: InboundMessage,
  ctx: { managedChannel: boolean; fromSelf?: boolean },
): PreflightVerdict {
  if (ctx.fromSelf || (agent.discordUserId && m.authorId === agent.discordUserId)) {
    return { proceed: false, reason: 'self' };
  }
  if (m.authorIsBot && !ctx.managedChannel)
    return { proceed: false, reason: 'bot-outside-managed' };
  return { proceed: true, mentioned: isMentioned(agent, m) };
}
