import type { Overwrite } from './permissions';

export interface FakeUser {
  id: string;
  username: string;
  bot: boolean;
  globalName: string | null;
}

export interface FakeRole {
  id: string;
  name: string;
  permissions: bigint;
  position: number;
  color?: number;
  mentionable?: boolean;
}

export interface FakeMember {
  userId: string;
  roleIds: string[];
  joinedAt: string;
  nick: string | null;
}

export interface FakeChannel {
  id: string;
  guildId: string;
  name: string;
  /** 0 = text, 4 = category */
  type: number;
  position: number;
  parentId: string | null;
  topic: string | null;
  overwrites: Overwrite[];
  lastMessageId: string | null;
  /** Threads: who opened it and when it archives itself. */
  ownerId?: string;
  autoArchiveMinutes?: number;
  /** Newest pin's time (CHANNEL_PINS_UPDATE's `last_pin_timestamp`). */
  lastPinAt?: string | null;
}

/** A native poll on a message. */
export interface FakePoll {
  question: string;
  answers: string[];
  expiry: string;
  allowMultiselect: boolean;
}

export interface FakeMessage {
  id: string;
  channelId: string;
  guildId: string;
  authorId: string;
  content: string;
  createdAt: string;
  webhookId?: string;
  /** Per-message display name and avatar of a webhook message. */
  webhookUsername?: string;
  webhookAvatarUrl?: string;
  nonce?: string;
  replyToMessageId?: string;
  /** Users mentioned in the content (`<@id>`), as Discord parses them. */
  mentionIds: string[];
  reactions: FakeReaction[];
  /** 64 = ephemeral etc. */
  flags: number;
  pinned?: boolean;
  poll?: FakePoll;
  /** The thread started from this message. */
  threadId?: string;
}

/** One emoji's reactions on a message: the unicode character or `name:id` (custom). */
export interface FakeReaction {
  emoji: string;
  userIds: string[];
}

export interface FakeWebhook {
  id: string;
  token: string;
  guildId: string;
  channelId: string;
  name: string;
  avatar: string | null;
  /** The user who created it (the bot, usually). */
  creatorId: string;
}

export interface FakeGuild {
  id: string;
  name: string;
  ownerId: string;
  createdAt: string;
  roles: Map<string, FakeRole>;
  members: Map<string, FakeMember>;
  channelIds: string[];
}

export interface FakeCommand {
  id: string;
  applicationId: string;
  guildId: string | null;
  name: string;
  description: string;
  type: number;
  options: unknown[];
  defaultMemberPermissions: string | null;
  version: string;
}

/** One API-level reply of an interaction, as the fake saw it. */
export interface InteractionResponse {
  /** 4 = message, 5 = deferred, 7 = update */
  type: number;
  content: string | null;
  ephemeral: boolean;
}

export interface FakeInteraction {
  id: string;
  token: string;
  guildId: string;
  channelId: string;
  userId: string;
  responses: InteractionResponse[];
  /** Resolves with the first non-deferred answer (a reply or the edit of a deferred one). */
  settle: (r: InteractionResponse) => void;
}
