import type { GuildChannelInfo, ProposalStatus, ProposalView } from '@dirigent/contracts';

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
  /** A message as the bot; `id` de-duplicates a re-send. */
  abstract post(guildId: string, channelId: string, content: string, id: string): Promise<void>;
}

/** The proposal read model (`steward_proposal`). */
export abstract class ProposalReadModel {
  abstract byId(proposalId: string): Promise<ProposalView | undefined>;
  abstract byMessageId(messageId: string): Promise<ProposalView | undefined>;
  abstract list(guildId: string, status?: ProposalStatus): Promise<ProposalView[]>;
}

/** `dirigent.steward.evt.<g>.proposal`, de-duplicated by the commit that caused it. */
export abstract class StewardEvents {
  abstract proposal(view: ProposalView, causeId: string): Promise<void>;
}
