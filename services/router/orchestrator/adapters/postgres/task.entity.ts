import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * A delegated orchestrator job (`router_tasks`): running off the channel's lane, owned by
 * the router process that runs it, so a restart can tell which ones died with a process.
 */
@Entity({ tableName: 'router_tasks' })
@Index({ properties: ['status', 'owner'] })
export class RouterTaskRow {
  @PrimaryKey({ type: 'uuid' })
  taskId: string;

  @Property({ type: 'string', length: 20 })
  guildId: string;

  @Property({ type: 'string', length: 20 })
  @Index()
  channelId: string;

  @Property({ type: 'string', length: 64 })
  agentId: string;

  @Property({ type: 'string', length: 16 })
  agentType: string;

  @Property({ type: 'string', length: 20, nullable: true })
  inboundMessageId: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  decisionId: string | null = null;

  @Property({ type: 'string', length: 16 })
  status: string;

  /** The process that runs it (its lease is a Postgres advisory lock). */
  @Property({ type: 'string', length: 128 })
  owner: string;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  startedAt: Date;

  @Property({ type: 'Date', columnType: 'timestamptz', nullable: true })
  endedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  summary: string | null = null;
}
