import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCodes, type PinMessageRequest } from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/** Pins or unpins a message; doing it twice changes nothing on Discord. */
@Injectable()
export class PinMessage {
  constructor(private readonly discord: DiscordGuilds) {}

  async run(r: PinMessageRequest): Promise<Record<string, never>> {
    const guild = await this.discord.guild(r.guildId);
    const channel = await this.discord.channel(guild, r.channelId);
    if (!channel.isTextBased()) {
      throw new DomainError(ErrorCodes.BAD_REQUEST, `channelId: ${r.channelId} has no messages`);
    }
    const what = `${r.unpin ? 'unpin' : 'pin'} ${r.messageId} in ${channel.id}`;
    await this.discord.call(what, () =>
      r.unpin ? channel.messages.unpin(r.messageId) : channel.messages.pin(r.messageId),
    );
    return {};
  }
}
