import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** A burst's progress (Migration20261128140000_router_bursts); its beats are its decision's. */
@Entity({ tableName: 'router_bursts' })
export class BurstRow {
  @PrimaryKey({ length: 64 }) decisionId: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  @Property({ length: 64 }) agentId: string;
  @Property({ length: 64 }) dispositionId: string;
  @Property({ length: 16 }) status: 'running' | 'done' | 'interrupted' | 'stopped';
  @Property() sent = 0;
  @Property({ type: 'json' }) sentIds: string[] = [];
  @Property({ columnType: 'timestamptz' }) updatedAt: Date;
}
