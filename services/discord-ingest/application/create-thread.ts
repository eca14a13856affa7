import { Injectable } from '@nestjs/common';
import { ChannelType, type ThreadAutoArchiveDuration } from 'discord.js';
import {
  DomainError,
  ErrorCodes,
  type CreateThreadRequest,
  type CreateThreadResult,
} from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/** A public thread in a text channel: on a message when `messageId` is given, else standalone. */
@Injectable()
export class CreateThread {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(r: CreateThreadRequest): Promise<CreateThreadResult> {
    const guild = await this.discord.guild(r.guildId);
    const channel = await this.discord.channel(guild, r.channelId);
    if (channel.type !== ChannelType.GuildText) {
      throw new DomainError(
        ErrorCodes.BAD_REQUEST,
        `channelId: ${r.channelId} is not a text channel that can hold threads`,
      );
    }
    const thread = await this.discord.call(`thread in ${channel.id}`, () =>
      channel.threads.create({
        name: r.name,
        ...(r.messageId
          ? { startMessage: r.messageId }
          : { type: ChannelType.PublicThread as const }),
        ...(r.autoArchiveMinutes
          ? { autoArchiveDuration: r.autoArchiveMinutes as ThreadAutoArchiveDuration }
          : {}),
      }),
    );
    return { threadId: thread.id };
  }
}
