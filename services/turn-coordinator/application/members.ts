import { Injectable, Logger } from '@nestjs/common';
import { isConversational, type ChannelState } from '@dirigent/turn-domain';
import { Channels } from './channels';
import { DiscordPort } from './ports';

/** No later speaker in this cycle is still a member: the next advance is a cycle boundary. */
export function lastOfCycle(s: ChannelState): boolean {
  const members = new Set(s.members.map((m) => m.agentId));
  return !s.speakers.slice(s.position + 1).some((sp) => members.has(sp.agentId));
}

/**
 * Keeps a channel's member list current. The design rebuilds the speaker list at cycle
 * boundaries and wakes, so members are re-read from Discord right before a command that may
 * reach one.
 */
@Injectable()
export class Members {
  private readonly log = new Logger('members');

  constructor(
    private readonly channels: Channels,
    private readonly discord: DiscordPort,
  ) {}

  async refresh(channelId: string, guildId: string): Promise<void> {
    let agents;
    try {
      agents = await this.discord.agentsIn(guildId, channelId);
    } catch (e) {
      // The ingest being down must not stall turns: carry on with the members we know.
      this.log.warn({ channelId, err: (e as Error).message }, 'members refresh failed');
      return;
    }
    await this.channels.execute(channelId, { type: 'RefreshMembers', data: { agents } });
  }

  /** Refreshes the members when the channel is idle or about to reach a cycle boundary. */
  async refreshIfBoundary(channelId: string, guildId: string, state: ChannelState): Promise<void> {
    if (!isConversational(state.mode) || state.tmState === 'archived') return;
    if (state.currentTurn !== null && !lastOfCycle(state)) return;
    await this.refresh(channelId, guildId);
  }
}
