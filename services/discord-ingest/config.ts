import { IsOptional, IsString, Matches } from 'class-validator';
import { BaseConfig, EnvInt, EnvPort } from '@dirigent/service-kit';

export class DiscordIngestConfig extends BaseConfig {
  @EnvPort() DISCORD_INGEST_PORT = 3001;
  /** Absent: the service runs without a Discord connection. */
  @IsOptional() @IsString() DISCORD_TOKEN?: string;
  /** REST base; the gateway URL comes from `GET /gateway/bot`, as on real Discord. */
  @Matches(/^https?:\/\/\S+$/, { message: '$property must be an http(s) URL' })
  DISCORD_API_URL = 'https://discord.com/api';
  /** The moderator's Discord user; the bot's own user when absent. */
  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: '$property must be a Discord snowflake' })
  DIRIGENT_MODERATOR_USER_ID?: string;
  /** Pages of 100 messages fetched per channel when catching up after a reconnect. */
  @EnvInt({ min: 0 }) DISCORD_CATCHUP_MAX_PAGES = 10;
  /**
   * The bot's gateway shard count: `auto` takes Discord's recommendation (`GET /gateway/bot`),
   * a number fixes it (the same in every replica).
   */
  @Matches(/^(auto|[1-9]\d{0,4})$/, { message: '$property must be auto or a shard count' })
  DISCORD_SHARD_COUNT = 'auto';
  /**
   * The shards this replica connects, comma-separated (`0,1`); absent: all of them. Needs a
   * numeric `DISCORD_SHARD_COUNT`; a guild's events come from the shard
   * `(guildId >> 22) % shardCount`.
   */
  @IsOptional()
  @Matches(/^\d{1,5}(,\d{1,5})*$/, { message: '$property must be shard ids like 0,1,2' })
  DISCORD_SHARD_IDS?: string;
  /** Deliveries of a send/delete command before it is dead-lettered. */
  @EnvInt({ min: 0 }) DISCORD_COMMAND_MAX_DELIVER = 8;
}
