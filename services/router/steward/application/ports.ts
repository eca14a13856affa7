import type {
  GuildChannelInfo,
  ProposalStatus,
  ProposalView,
  ReactionChanged,
  RoleInfo,
} from '@dirigent/contracts';
import type { DeciderRights } from '@dirigent/router-domain';

/** A member as the steward sees them: rights in the guild and the name the guild shows. */
export interface StewardMember extends DeciderRights {
  displayName?: string;
}

/** What the steward asks of the Discord ingest. */
export abstract class StewardDiscord {
  /** The bot's own user id (its reactions and messages are not a member's). */
  abstract selfId(): Promise<string>;
  /** Every guild the bot is in. */
  abstract guildIds(): Promise<string[]>;
  /** The guild's text channels; undefined when the ingest does not know the guild. */
  abstract channels(guildId: string): Promise<GuildChannelInfo[] | undefined>;
  /** A channel only the bot and members with ManageGuild see (`create-channel { private: true }`). */
  abstract createModChannel(guildId: string, name: string): Promise<string>;
  /** A plain text channel (an approved `create_channel`). */
  abstract createChannel(guildId: string, name: string): Promise<string>;
  /** The member's effective permission flag names (`member-permissions`). */
  abstract memberPermissions(guildId: string, userId: string): Promise<string[]>;
  /** The member's rights and display name in the guild; undefined when not a member. */
  abstract member(guildId: string, userId: string): Promise<StewardMember | undefined>;
  /** The guild's roles, highest first (`query.roles`). */
  abstract roles(guildId: string): Promise<RoleInfo[]>;
  /**
   * A message as the bot; `id` de-duplicates a re-send; `mentionRoleIds` are the roles it may
   * ping (no one otherwise).
   */
  abstract post(
    guildId: string,
    channelId: string,
    content: string,
    id: string,
    mentionRoleIds?: string[],
  ): Promise<void>;
}

/** The proposal read model (`steward_proposal`). */
export abstract class ProposalReadModel {
  abstract byId(proposalId: string): Promise<ProposalView | undefined>;
  abstract byMessageId(messageId: string): Promise<ProposalView | undefined>;
  abstract list(guildId: string, status?: ProposalStatus): Promise<ProposalView[]>;
  /** How many of the guild's proposals are pending. */
  abstract pendingCount(guildId: string): Promise<number>;
  /** How many proposals the member asked for in the guild since `since`. */
  abstract requestedSince(guildId: string, userId: string, since: Date): Promise<number>;
}

/** A ✅ or ❌ on a mod channel message, with the time it was given (its event's `at`). */
export interface HeldDecision {
  reaction: ReactionChanged;
  at: string;
}

/**
 * Decisions given on a mod channel message that is not (yet) a recorded proposal post — the
 * router was killed between posting and recording it — kept durably by message id until the
 * post is recorded.
 */
export abstract class HeldDecisions {
  abstract hold(d: HeldDecision): Promise<void>;
  /** The decisions held for the message, oldest first. */
  abstract list(messageId: string): Promise<HeldDecision[]>;
  /** Forgets them once applied (a kill before this applies them again: idempotent). */
  abstract release(messageId: string, held: HeldDecision[]): Promise<void>;
}

/** `dirigent.steward.evt.<g>.proposal`, de-duplicated by the commit that caused it. */
export abstract class StewardEvents {
  abstract proposal(view: ProposalView, causeId: string): Promise<void>;
}
