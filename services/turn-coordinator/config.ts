import { IsOptional, IsString, Matches } from 'class-validator';
import { BaseConfig, EnvInt, EnvPort } from '@dirigent/service-kit';
import { DEFAULT_TURN_CONFIG, type TurnDomainConfig } from '@dirigent/turn-domain';

export class TurnCoordinatorConfig extends BaseConfig {
  @EnvPort() TURN_COORDINATOR_PORT = 3002;
  @EnvInt({ min: 0 }) DIRIGENT_DELIVERY_TIMEOUT_MS = 15000;
  @EnvInt({ min: 0 }) DIRIGENT_TAIL_FINGERPRINT_LEN = 40;
  @IsString() DIRIGENT_SCHEDULE_IDENTIFIER = '➡️';
  @IsString() DIRIGENT_MULTI_MESSAGE_START = '↗️';
  @IsString() DIRIGENT_MULTI_MESSAGE_END = '↙️';
  @IsString() DIRIGENT_MULTI_MESSAGE_PROMPT = '⤵️';
  @EnvInt({ min: 0 }) DIRIGENT_CHECK_WAIT_MS = 2000;
  @EnvInt({ min: 0 }) DIRIGENT_MAX_CYCLES_WITHOUT_HUMAN = 3;
  /** The moderator bot's own user id: its messages never wake a channel. */
  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: '$property must be a Discord snowflake' })
  DIRIGENT_MODERATOR_USER_ID?: string;
  /** The directory holding `discussion-summary/` (created if missing). */
  @IsString() DIRIGENT_WORKSPACE = '.dirigent/workspace';
  /** A granted speaker silent (no completion, no message) this long is skipped; 0 = off. */
  @EnvInt({ min: 0 }) DIRIGENT_SPEAKER_TIMEOUT_MS = 600000;
  /** Bot or webhook user ids (comma-separated) that may wake channels and interrupt waits. */
  @IsString() DIRIGENT_BOT_ALLOWLIST = '';
  /** A typing human holds the next grant this long at most; 0 = off. */
  @EnvInt({ min: 0 }) DIRIGENT_TYPING_HOLD_MS = 8000;
  /** Discussion cycles without a human before the initiator is asked to conclude; 0 = off. */
  @EnvInt({ min: 0 }) DIRIGENT_MAX_DISCUSSION_CYCLES_WITHOUT_HUMAN = 10;
  /** JSON file of identities imported at start (`[{ discordUserId, agentId, agentName? }]`). */
  @IsOptional() @IsString() DIRIGENT_IDENTITY_FILE?: string;
  /** padded-cell's `ego.json`, scanned at start when its `columns` include `discord-id`. */
  @IsOptional() @IsString() DIRIGENT_EGO_FILE?: string;
  /** Time allowed for the ingest's members query and create-channel RPC. */
  @EnvInt({ min: 0 }) DIRIGENT_DISCORD_RPC_TIMEOUT_MS = 5000;
  /** Discord events and turn completions handled at once (order is kept per channel). */
  @EnvInt({ min: 1, max: 256 }) DIRIGENT_COORDINATOR_CONCURRENCY = 16;
  /**
   * Partitions the channels are divided into among coordinator replicas, each leased by one
   * replica at a time (the same number on every replica); 0 = not partitioned: one replica
   * consumes every channel on the shared durables.
   */
  @EnvInt({ min: 0, max: 256 }) DIRIGENT_COORDINATOR_PARTITIONS = 0;
  /**
   * This replica's name in the partition leases (one process at a time: a replica restarted
   * under the same id takes its leases back at once); unset = a new random id per process.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: '$property must match [A-Za-z0-9_-]{1,64}' })
  DIRIGENT_COORDINATOR_REPLICA_ID?: string;
  /** A partition lease not renewed this long expires and another replica takes it. */
  @EnvInt({ min: 600, max: 60000 }) DIRIGENT_COORDINATOR_LEASE_MS = 2000;
}

/** The deciders' configuration out of the service's environment. */
export function domainConfig(c: TurnCoordinatorConfig): TurnDomainConfig {
  return {
    ...DEFAULT_TURN_CONFIG,
    tailFingerprintLen: c.DIRIGENT_TAIL_FINGERPRINT_LEN,
    deliveryTimeoutMs: c.DIRIGENT_DELIVERY_TIMEOUT_MS,
    maxCyclesWithoutHuman: c.DIRIGENT_MAX_CYCLES_WITHOUT_HUMAN,
    scheduleIdentifier: c.DIRIGENT_SCHEDULE_IDENTIFIER,
    multiMessageStartMarker: c.DIRIGENT_MULTI_MESSAGE_START,
    multiMessageEndMarker: c.DIRIGENT_MULTI_MESSAGE_END,
    multiMessagePromptMarker: c.DIRIGENT_MULTI_MESSAGE_PROMPT,
    speakerTimeoutMs: c.DIRIGENT_SPEAKER_TIMEOUT_MS,
    botAllowlist: c.DIRIGENT_BOT_ALLOWLIST.split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
    typingHoldMs: c.DIRIGENT_TYPING_HOLD_MS,
    maxDiscussionCyclesWithoutHuman: c.DIRIGENT_MAX_DISCUSSION_CYCLES_WITHOUT_HUMAN,
  };
}
