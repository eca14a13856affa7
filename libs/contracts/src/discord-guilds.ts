import { IsOptional, Matches } from 'class-validator';
import { createValidated } from './validation';

/** `dirigent.discord.query.guilds`: every guild the moderator bot is in, or only one. */
export class GuildsQuery {
  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: '$property must be a Discord snowflake' })
  guildId?: string;
  static create(input: unknown) {
    return createValidated(GuildsQuery, input ?? {});
  }
}

export interface GuildChannelInfo {
  channelId: string;
  name: string;
  /** Hidden from @everyone (a private group channel). */
  private: boolean;
}

export interface GuildInfo {
  guildId: string;
  name: string;
  /** Text channels, in Discord's order. */
  channels: GuildChannelInfo[];
}

export interface GuildsResult {
  guilds: GuildInfo[];
}
