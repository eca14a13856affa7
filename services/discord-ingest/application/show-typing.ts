import { Injectable } from '@nestjs/common';
import type { Client } from 'discord.js';
import type { TypingCommand } from '@dirigent/contracts';
import { DiscordRest } from '../adapters/discord-rest';

/** Shows the bot typing in a channel (Discord keeps it ~10 s, or until the bot sends). */
@Injectable()
export class ShowTyping {
  constructor(private readonly rest: DiscordRest) {}

  async run(client: Client<true>, cmd: TypingCommand): Promise<void> {
    const channel = await this.rest.textChannel(client, cmd.guildId, cmd.channelId);
    await this.rest.call('typing', () => channel.sendTyping());
  }
}
