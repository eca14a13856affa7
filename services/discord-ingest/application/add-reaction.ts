import { Injectable } from '@nestjs/common';
import { resolvePartialEmoji, type Client } from 'discord.js';
import type { AddReactionCommand } from '@dirigent/contracts';
import { PermanentError } from '@dirigent/messaging';
import { DiscordRest } from '../adapters/discord-rest';

/** Reacts as the bot. Reacting twice with one emoji is a no-op on Discord: redelivery is safe. */
@Injectable()
export class AddReaction {
  constructor(private readonly rest: DiscordRest) {}

  async run(client: Client<true>, cmd: AddReactionCommand): Promise<void> {
    const emoji = resolvePartialEmoji(cmd.emoji);
    if (!emoji || !('name' in emoji) || !emoji.name) {
      throw new PermanentError(`${cmd.emoji} is neither a unicode emoji nor name:id`);
    }
    const channel = await this.rest.textChannel(client, cmd.guildId, cmd.channelId);
    await this.rest.call('react', () => channel.messages.react(cmd.messageId, cmd.emoji));
  }
}
