import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type CreatePollRequest,
  type CreatePollResult,
} from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/** A native Discord poll, posted by the bot in a text channel. */
@Injectable()
export class CreatePoll {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(r: CreatePollRequest): Promise<CreatePollResult> {
    const guild = await this.discord.guild(r.guildId);
    const channel = await this.discord.channel(guild, r.channelId);
    if (!channel.isTextBased() || !('send' in channel)) {
      throw new DomainError(
        ErrorCodes.BAD_REQUEST,
        `channelId: ${r.channelId} is not a text channel`,
      );
    }
    const message = await this.discord.call(`poll in ${channel.id}`, () =>
      channel.send({
        poll: {
          question: { text: r.question },
          answers: r.answers.map((text) => ({ text })),
          duration: r.durationHours,
          allowMultiselect: r.multiSelect ?? false,
        },
      }),
    );
    return { messageId: message.id };
  }
}
