import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** One registered agent identity (projection of the identity registry aggregate). */
@Entity({ tableName: 'tc_identity' })
export class IdentityRow {
  @PrimaryKey({ type: 'string', length: 20 })
  discordUserId: string;

  @Property({ type: 'string', length: 64, unique: true })
  agentId: string;

  @Property({ type: 'string', length: 80, nullable: true })
  agentName: string | null = null;

  /** Where the entry came from: admin, tool, import or padded-cell. */
  @Property({ type: 'string', length: 20 })
  source: string;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}

/**
 * The read model of one channel aggregate (its folded state, with columns for queries):
 * what the control page, the playground and admin reads show.
 */
@Entity({ tableName: 'tc_channel' })
export class ChannelRow {
  @PrimaryKey({ type: 'string', length: 20 })
  channelId: string;

  @Index()
  @Property({ type: 'string', length: 20, nullable: true })
  guildId: string | null = null;

  @Property({ type: 'string', length: 16 })
  mode: string;

  @Property({ type: 'string', length: 16 })
  tmState: string;

  @Property({ type: 'json' })
  speakers: { agentId: string; discordUserId: string }[] = [];

  @Property({ type: 'string', length: 64, nullable: true })
  currentSpeaker: string | null = null;

  @Property({ type: 'string', length: 120, nullable: true })
  currentTurnId: string | null = null;

  @Property({ type: 'string', length: 24, nullable: true })
  turnPhase: string | null = null;

  @Property({ type: 'integer' })
  cycle = 0;

  @Property({ type: 'boolean' })
  dormant = false;

  @Property({ type: 'string', length: 32, nullable: true })
  dormantReason: string | null = null;

  @Property({ type: 'boolean' })
  multiMessage = false;

  @Property({ type: 'boolean', nullable: true })
  shuffle: boolean | null = null;

  @Property({ type: 'string', length: 16 })
  wakeMode: string;

  @Property({ type: 'json', nullable: true })
  discussion: Record<string, unknown> | null = null;

  @Property({ type: 'string', length: 20, nullable: true })
  lastMessageId: string | null = null;

  /** The folded aggregate state the columns above are read from. */
  @Property({ type: 'json' })
  state: Record<string, unknown>;

  /** Stream sequence of the last applied commit. */
  @Property({ type: 'bigint', columnType: 'bigint' })
  version: string;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}

/** One entry of a channel's turn timeline (grants, completions, dormancy, ...). */
@Entity({ tableName: 'tc_turn_event' })
@Index({ properties: ['channelId', 'seq'] })
export class TurnEventRow {
  @PrimaryKey({ type: 'bigint', columnType: 'bigint', autoincrement: true })
  id: string;

  @Property({ type: 'string', length: 20 })
  channelId: string;

  @Property({ type: 'bigint', columnType: 'bigint' })
  seq: string;

  @Property({ type: 'integer' })
  idx: number;

  @Property({ type: 'string', length: 40 })
  type: string;

  @Property({ type: 'string', length: 64, nullable: true })
  agentId: string | null = null;

  @Property({ type: 'string', length: 120, nullable: true })
  turnId: string | null = null;

  @Property({ type: 'integer', nullable: true })
  cycle: number | null = null;

  @Property({ type: 'json' })
  data: Record<string, unknown>;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  at: Date;
}

export const turnCoordinatorEntities = [IdentityRow, ChannelRow, TurnEventRow];
