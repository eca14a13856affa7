import { Injectable } from '@nestjs/common';
import { IsObject, Matches } from 'class-validator';
import { DomainError, ErrorCodes } from '@dirigent/contracts';
import type { TimerCommand } from '@dirigent/turn-domain';
import { Channels } from './channels';
import { Members } from './members';

const TIMER_COMMANDS: ReadonlySet<string> = new Set<TimerCommand['type']>([
  'DeliveryTimeout',
  'SpeakerTimeout',
  'TypingHoldExpired',
]);

/** What a channel timer (delivery timeout, speaker timeout, typing hold) publishes when it fires. */
export class ChannelTimerPayload {
  @Matches(/^\d{1,20}$/) channelId: string;
  @IsObject() command: TimerCommand;
}

/** A durable channel timer fired: its command is decided like any other input. */
@Injectable()
export class ChannelTimerFired {
  constructor(
    private readonly channels: Channels,
    private readonly members: Members,
  ) {}

  async run(t: ChannelTimerPayload): Promise<void> {
    const command = t.command;
    if (!TIMER_COMMANDS.has(command?.type)) {
      throw new DomainError(ErrorCodes.BAD_REQUEST, `unexpected timer command ${command?.type}`);
    }
    const state = await this.channels.state(t.channelId);
    const turn = state.currentTurn;
    const advances =
      command.type === 'TypingHoldExpired'
        ? state.heldGrant !== null
        : turn?.turnId === command.data.turnId &&
          turn.phase === (command.type === 'DeliveryTimeout' ? 'awaiting-delivery' : 'running');
    // The next grant may reach a cycle boundary: fetch the members first.
    if (advances && state.guildId) {
      await this.members.refreshIfBoundary(t.channelId, state.guildId, state);
    }
    await this.channels.execute(t.channelId, command);
  }
}
