import type {
  ChannelMembersResult,
  CreateChannelResult,
  MessagePurpose,
} from '@dirigent/contracts';
import type { AgentRef } from '@dirigent/turn-domain';

export interface ModeratorMessage {
  guildId: string;
  channelId: string;
  content: string;
  purpose: MessagePurpose;
  deleteAfterSend?: boolean;
}

/** What the coordinator asks of Discord (through the ingest): members, channels, sends. */
export abstract class DiscordPort {
  /** Current members of a channel; throws a DomainError when Discord cannot answer. */
  abstract members(guildId: string, channelId: string): Promise<ChannelMembersResult['members']>;
  /** The registered agents among a channel's current members. */
  abstract agentsIn(guildId: string, channelId: string): Promise<AgentRef[]>;
  abstract createChannel(
    guildId: string,
    name: string,
    memberIds: string[],
  ): Promise<CreateChannelResult>;
  /** Sends a moderator message; `id` makes a re-send of the same effect a no-op. */
  abstract send(id: string, msg: ModeratorMessage): Promise<void>;
}
