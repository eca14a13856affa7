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
   * a number fixes it (the same in every replica). The shards are leased to the replicas;
   * a guild's events come from shard `(guildId >> 22) % shardCount`.
   */
  @Matches(/^(auto|[1-9]\d{0,4})$/, { message: '$property must be auto or a shard count' })
  DISCORD_SHARD_COUNT = 'auto';
  /**
   * This replica's name in the shard leases (one process at a time: a replica restarted under
   * the same id takes its leases back at once); unset = a new random id per process.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: '$property must be 1-64 of [A-Za-z0-9_-]' })
  DISCORD_INGEST_REPLICA_ID?: string;
  /**
   * How long a shard lease lives without renewal: a dead replica's shards are taken over
   * about this long after it stopped renewing (replicas renew every sixth of it).
   */
  @EnvInt({ min: 600, max: 60000 }) DISCORD_SHARD_LEASE_MS = 4000;
  /** Deliveries of a send/delete command before it is dead-lettered. */
  @EnvInt({ min: 0 }) DISCORD_COMMAND_MAX_DELIVER = 8;
}
