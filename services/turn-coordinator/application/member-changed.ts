import { Injectable } from '@nestjs/common';
import type { MemberChanged as MemberChangedEvent } from '@dirigent/contracts';
import { isConversational } from '@dirigent/turn-domain';
import { Channels } from './channels';
import { Members } from './members';

/** Someone joined or left a channel: a conversational channel re-reads its members. */
@Injectable()
export class MemberChanged {
  constructor(
    private readonly channels: Channels,
    private readonly members: Members,
  ) {}

  async run(m: MemberChangedEvent): Promise<void> {
    const state = await this.channels.state(m.channelId);
    if (!isConversational(state.mode) || state.tmState === 'archived') return;
    await this.members.refresh(m.channelId, m.guildId);
  }
}
