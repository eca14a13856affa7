import { Injectable } from '@nestjs/common';
import type { DiscordSelfResult } from '@dirigent/contracts';
import { DiscordGuilds } from '../adapters/discord-guilds';

/** The bot's own Discord user (UNAVAILABLE until connected), so others can tell its messages. */
@Injectable()
export class GetSelf {
  constructor(private readonly discord: DiscordGuilds) {}

  run(): DiscordSelfResult {
    return { userId: this.discord.client().user.id };
  }
}
