import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

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
