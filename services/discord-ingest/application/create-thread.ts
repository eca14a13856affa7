import { Injectable } from '@nestjs/common';
import { ChannelType, Routes } from 'discord.js';
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
    const threadId = await this.discord.create(
      `thread in ${channel.id}`,
      Routes.threads(channel.id, r.messageId),
      {
        name: r.name,
        type: ChannelType.PublicThread,
        auto_archive_duration: r.autoArchiveMinutes,
      },
    );
    return { threadId };
  }
}
