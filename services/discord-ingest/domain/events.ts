import {
  MESSAGE_LIMITS,
  subject,
  type Audience,
  type ChannelUpdated,
  type DiscordEventKind,
  type MemberChanged,
  type MessageCreated,
  type MessageDeleted,
  type ReactionChanged,
  type TypingStarted,
} from '@dirigent/contracts';

/** What the gateway handlers see of a message, free of discord.js types. */
export interface MessageFacts {
  id: string;
  guildId: string | null;
  channelId: string;
  authorId: string;
  authorIsBot: boolean;
  content: string;
  createdAt: Date;
  webhookId: string | null;
  /** Ephemeral and system messages are not part of the conversation. */
  system: boolean;
  /** Member nick, else global name, else username (a webhook's per-message name). */
  authorName: string | null;
  /** Ids of the users mentioned. */
  mentions: string[];
  replyToMessageId: string | null;
  /** Its channel's audience; null when it could not be told (the channel not cached). */
  audience: AudienceFacts | null;
}

/** Who may see a channel, as the ingest tells it from the channel's overwrites. */
export interface AudienceFacts {
  audience: Audience;
  /** Changes when the channel's overwrites (a thread: its parent's) do. */
  audienceKey: string;
  /** A thread's parent channel. */
  parentChannelId: string | null;
}

/** A reaction added or removed, as the gateway handler sees it. */
export interface ReactionFacts {
  kind: 'reaction.added' | 'reaction.removed';
  guildId: string | null;
  channelId: string;
  messageId: string;
  userId: string;
  /** Unicode emoji: its name; custom emoji: its name and id. */
  emojiName: string | null;
  emojiId: string | null;
  /** The reacting user is a bot (absent when the gateway did not say). */
  userIsBot?: boolean;
  receivedAt: Date;
}

/** A normalised Discord event, ready to publish. */
export type IngestEvent =
  | { kind: 'message.created'; data: MessageCreated & { mentions: string[] } }
  | { kind: 'message.deleted'; data: MessageDeleted }
  | { kind: 'typing.started'; data: TypingStarted }
  | {
      kind: 'member.joined' | 'member.left';
      data: MemberChanged;
      /** The member's join time, which keeps the envelope id stable across replays. */
      joinedAtMs: number | null;
      /** Set when the channel's access changed (not the guild's members): when it did. */
      accessChangedAtMs?: number;
    }
  | {
      kind: 'reaction.added' | 'reaction.removed';
      data: ReactionChanged;
      /**
       * Discord gives a reaction no id or time: the receipt time tells an add after a
       * remove apart from the first add (retried publishes reuse the same envelope).
       */
      receivedAtMs: number;
    }
  | {
      kind: 'channel.updated';
      data: ChannelUpdated;
      /** When the change was seen; null for the report of every channel on connecting. */
      changedAtMs: number | null;
    };

export type Classified = { ok: true; event: IngestEvent } | { ok: false; reason: string };

export function classifyMessage(m: MessageFacts): Classified {
  if (!m.guildId) return { ok: false, reason: 'direct message' };
  if (m.system) return { ok: false, reason: 'system message' };
  return {
    ok: true,
    event: {
      kind: 'message.created',
      data: {
        guildId: m.guildId,
        channelId: m.channelId,
        messageId: m.id,
        authorId: m.authorId,
        authorIsBot: m.authorIsBot || m.webhookId !== null,
        content: m.content.slice(0, MESSAGE_LIMITS.content),
        createdAt: m.createdAt.toISOString(),
        ...(m.webhookId ? { webhookId: m.webhookId } : {}),
        ...(m.authorName ? { authorName: m.authorName.slice(0, MESSAGE_LIMITS.authorName) } : {}),
        mentions: [...new Set(m.mentions)].slice(0, MESSAGE_LIMITS.mentions),
        ...(m.replyToMessageId ? { replyToMessageId: m.replyToMessageId } : {}),
        ...(m.audience
          ? {
              audience: m.audience.audience,
              audienceKey: m.audience.audienceKey,
              ...(m.audience.parentChannelId
                ? { parentChannelId: m.audience.parentChannelId }
                : {}),
            }
          : {}),
      },
    },
  };
}

/**
 * A channel's audience to report: when it changed (`before` differs from `after` by
 * audience or overwrites), or on connecting (`before` null: every channel once, so memory
 * knows channels that have been quiet since a change it missed).
 */
export function classifyChannelAudience(c: {
  guildId: string;
  channelId: string;
  name: string;
  before: AudienceFacts | null;
  after: AudienceFacts;
  changedAt: Date | null;
}): Classified {
  if (c.before && c.before.audienceKey === c.after.audienceKey) {
    return { ok: false, reason: 'audience unchanged' };
  }
  return {
    ok: true,
    event: {
      kind: 'channel.updated',
      data: {
        guildId: c.guildId,
        channelId: c.channelId,
        name: c.name.slice(0, 100),
        audience: c.after.audience,
        audienceKey: c.after.audienceKey,
        ...(c.after.parentChannelId ? { parentChannelId: c.after.parentChannelId } : {}),
      },
      changedAtMs: c.before && c.changedAt ? c.changedAt.getTime() : null,
    },
  };
}

/**
 * A channel's audience key: its audience and a digest of the overwrites that decide it,
 * in a fixed order, so equal overwrites give equal keys on every replica.
 */
export function audienceKeyOf(
  audience: Audience,
  overwrites: { id: string; type: number; allow: string; deny: string }[],
): string {
  const canon = [...overwrites]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((o) => `${o.type}:${o.id}:${o.allow}:${o.deny}`)
    .join(',');
  return `${audience}:${fnv1a(canon)}`;
}

/** 64-bit FNV-1a of a string, as hex: short and stable, not a secret. */
function fnv1a(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

export function classifyReaction(r: ReactionFacts): Classified {
  if (!r.guildId) return { ok: false, reason: 'direct message' };
  if (!r.emojiName) return { ok: false, reason: 'reaction without an emoji' };
  return {
    ok: true,
    event: {
      kind: r.kind,
      data: {
        guildId: r.guildId,
        channelId: r.channelId,
        messageId: r.messageId,
        userId: r.userId,
        emoji: r.emojiId ? `${r.emojiName}:${r.emojiId}` : r.emojiName,
        ...(r.userIsBot ? { userIsBot: true } : {}),
      },
      receivedAtMs: r.receivedAt.getTime(),
    },
  };
}

export function classifyDeletion(m: {
  id: string;
  guildId: string | null;
  channelId: string;
}): Classified {
  if (!m.guildId) return { ok: false, reason: 'direct message' };
  return {
    ok: true,
    event: {
      kind: 'message.deleted',
      data: { guildId: m.guildId, channelId: m.channelId, messageId: m.id },
    },
  };
}

export function classifyTyping(t: {
  guildId: string | null;
  channelId: string;
  userId: string;
  startedAt: Date;
}): Classified {
  if (!t.guildId) return { ok: false, reason: 'direct message' };
  return {
    ok: true,
    event: {
      kind: 'typing.started',
      data: {
        guildId: t.guildId,
        channelId: t.channelId,
        userId: t.userId,
        at: t.startedAt.toISOString(),
      },
    },
  };
}

/** A member joining or leaving the guild is an event in every channel they can see. */
export function classifyMembership(m: {
  kind: 'member.joined' | 'member.left';
  guildId: string;
  userId: string;
  isBot: boolean;
  joinedAt: Date | null;
  visibleChannelIds: string[];
}): IngestEvent[] {
  return m.visibleChannelIds.map((channelId) => ({
    kind: m.kind,
    data: { guildId: m.guildId, channelId, userId: m.userId, isBot: m.isBot },
    joinedAtMs: m.joinedAt ? m.joinedAt.getTime() : null,
  }));
}

/**
 * A channel's access changed (its permission overwrites): who gained view access joined
 * that channel, who lost it left it.
 */
export function classifyAccessChange(c: {
  guildId: string;
  channelId: string;
  members: { userId: string; isBot: boolean; before: boolean; after: boolean }[];
  changedAt: Date;
}): Extract<IngestEvent, { kind: 'member.joined' | 'member.left' }>[] {
  return c.members
    .filter((m) => m.before !== m.after)
    .map((m) => ({
      kind: m.after ? ('member.joined' as const) : ('member.left' as const),
      data: { guildId: c.guildId, channelId: c.channelId, userId: m.userId, isBot: m.isBot },
      joinedAtMs: null,
      accessChangedAtMs: c.changedAt.getTime(),
    }));
}

export interface Publication {
  subject: string;
  /** Derived from Discord ids so a replayed gateway event is de-duplicated by JetStream. */
  envelopeId: string;
  type: DiscordEventKind;
  data: IngestEvent['data'];
}

export function toPublication(e: IngestEvent): Publication {
  const { guildId, channelId } = e.data;
  const at = (id: string): Publication => ({
    subject: subject.discordEvent(guildId, channelId, e.kind),
    envelopeId: id,
    type: e.kind,
    data: e.data,
  });
  switch (e.kind) {
    case 'message.created':
      return at(`discord:msg:${e.data.messageId}`);
    case 'message.deleted':
      return at(`discord:msg-deleted:${e.data.messageId}`);
    case 'typing.started':
      return at(`discord:typing:${channelId}:${e.data.userId}:${Date.parse(e.data.at)}`);
    case 'member.joined':
    case 'member.left':
      return at(
        e.accessChangedAtMs !== undefined
          ? `discord:${e.kind}:${guildId}:${channelId}:${e.data.userId}:access:${e.accessChangedAtMs}`
          : `discord:${e.kind}:${guildId}:${channelId}:${e.data.userId}:${e.joinedAtMs ?? 'unknown'}`,
      );
    case 'reaction.added':
    case 'reaction.removed':
      return at(
        `discord:${e.kind}:${e.data.messageId}:${e.data.userId}:${e.data.emoji}:${e.receivedAtMs}`,
      );
    case 'channel.updated':
      // A change is its own event (a channel may go private, public and private again);
      // the report on connecting repeats per key, so replicas and restarts de-duplicate.
      return at(
        `discord:channel-updated:${channelId}:${e.data.audienceKey}:${e.changedAtMs ?? 'state'}`,
      );
    default: {
      const never: never = e;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}
