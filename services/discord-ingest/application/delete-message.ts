import { Injectable } from '@nestjs/common';
import type { Client } from 'discord.js';
import type { DeleteMessageCommand } from '@dirigent/contracts';
import { DiscordRest } from '../adapters/discord-rest';

/** Deletes a message; one that is already gone counts as deleted. */
@Injectable()
export class DeleteMessage {
  constructor(private readonly rest: DiscordRest) {}

  async run(client: Client<true>, cmd: DeleteMessageCommand): Promise<void> {
    const channel = await this.rest.textChannel(client, cmd.guildId, cmd.channelId);
    await this.rest.call('delete', () => channel.messages.delete(cmd.messageId));
  }
}
