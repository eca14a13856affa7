import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type AgentNamesResult,
  type SlashChannelRequest,
} from '@dirigent/contracts';
import type { ChannelViewReply } from './channel-view';
import { ChannelSettings } from './channel-settings';
import { IdentityAdmin } from './identity-admin';

const NEEDS_MANAGE = 'changing how this channel takes turns needs the Manage Channels permission';

/**
 * `/dirigent …` from the ingest: the member's own rights decide. Changing the channel needs
 * Manage Channels there (as Discord reported it on the interaction); reading it needs nothing.
 */
@Injectable()
export class SlashCommands {
  constructor(
    private readonly channels: ChannelSettings,
    private readonly identities: IdentityAdmin,
  ) {}

  setMode(r: SlashChannelRequest): Promise<ChannelViewReply> {
    if (r.mode === undefined) throw badRequest('mode');
    mayManage(r);
    return this.channels.setMode({ guildId: r.guildId, channelId: r.channelId, mode: r.mode });
  }

  setShuffle(r: SlashChannelRequest): Promise<ChannelViewReply> {
    if (r.shuffle === undefined) throw badRequest('shuffle');
    mayManage(r);
    return this.channels.setShuffle({
      guildId: r.guildId,
      channelId: r.channelId,
      shuffle: r.shuffle,
    });
  }

  skip(r: SlashChannelRequest): Promise<ChannelViewReply> {
    mayManage(r);
    return this.channels.advance({
      guildId: r.guildId,
      channelId: r.channelId,
      requestedBy: r.userId,
    });
  }

  status(r: SlashChannelRequest): Promise<ChannelViewReply> {
    return this.channels.get({ channelId: r.channelId });
  }

  async agentNames(): Promise<AgentNamesResult> {
    const { entries } = await this.identities.list({});
    return { names: entries.map((e) => ({ agentId: e.agentId, agentName: e.agentName })) };
  }
}

function mayManage(r: SlashChannelRequest): void {
  if (!r.canManageChannels) throw new DomainError(ErrorCodes.FORBIDDEN, NEEDS_MANAGE);
}

function badRequest(field: string): DomainError {
  return new DomainError(ErrorCodes.BAD_REQUEST, `${field} is required`, [
    { field, messages: [`${field} is required for this command`] },
  ]);
}
