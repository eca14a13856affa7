import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

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
