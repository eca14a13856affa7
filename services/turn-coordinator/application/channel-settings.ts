import { Injectable, Logger } from '@nestjs/common';
import type {
  ChannelAdvanceRequest,
  ChannelGetRequest,
  SetModeRequest,
  SetShuffleRequest,
  SetWakeModeRequest,
} from '@dirigent/contracts';
import { ChannelReadModel } from '@dirigent/control-web';
import { isChannelMode, isConversational, LOCKED_MODE_SET } from '@dirigent/turn-domain';
import { channelView, type ChannelViewReply } from './channel-view';
import { Channels } from './channels';
import { lastOfCycle, Members } from './members';
import { DiscordPort } from './ports';

/** A channel's admin surface: mode, shuffle, wake mode, and its current view. */
@Injectable()
export class ChannelSettings {
  private readonly log = new Logger('channel-settings');

  constructor(
    private readonly channels: Channels,
    private readonly discord: DiscordPort,
    private readonly reads: ChannelReadModel,
    private readonly members: Members,
  ) {}

  async setMode(r: SetModeRequest): Promise<ChannelViewReply> {
    const current = await this.channels.state(r.channelId);
    const agents =
      isChannelMode(r.mode) && isConversational(r.mode) && !LOCKED_MODE_SET.has(current.mode)
        ? await this.discord.agentsIn(r.guildId, r.channelId).catch((e: Error) => {
            // Without the ingest, start from the members already known; the next message
            // refreshes them.
            this.log.warn({ channelId: r.channelId, err: e.message }, 'members unknown');
            return undefined;
          })
        : undefined;
    const { state } = await this.channels.execute(r.channelId, {
      type: 'SetMode',
      data: { guildId: r.guildId, mode: r.mode, ...(agents ? { agents } : {}) },
    });
    return channelView(state);
  }

  async setShuffle(r: SetShuffleRequest): Promise<ChannelViewReply> {
    const { state } = await this.channels.execute(r.channelId, {
      type: 'SetShuffle',
      data: { shuffle: r.shuffle ?? null },
    });
    return channelView(state);
  }

  async setWakeMode(r: SetWakeModeRequest): Promise<ChannelViewReply> {
    const { state } = await this.channels.execute(r.channelId, {
      type: 'SetWakeMode',
      data: { wakeMode: r.wakeMode },
    });
    return channelView(state);
  }

  /** Skips the current speaker now (a stalled or absent agent); idle, grants the next one. */
  async advance(r: ChannelAdvanceRequest): Promise<ChannelViewReply> {
    const current = await this.channels.state(r.channelId);
    const guildId = r.guildId ?? current.guildId;
    if (guildId && current.currentTurn !== null && lastOfCycle(current)) {
      await this.members.refresh(r.channelId, guildId);
    }
    const { state } = await this.channels.execute(r.channelId, {
      type: 'AdvanceTurn',
      data: { requestedBy: r.requestedBy ?? null },
    });
    return channelView(state);
  }

  /** The channel as the read model holds it, once it has the channel's latest commit. */
  async get(r: ChannelGetRequest): Promise<ChannelViewReply> {
    return channelView((await this.reads.channel(r.channelId)).state);
  }
}
