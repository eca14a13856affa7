import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** A self-follow-up's lifecycle: scheduled, then fired or aborted (once). */
@Entity({ tableName: 'self_followup_schedules' })
export class FollowupRow {
  @PrimaryKey({ length: 64 }) followupId: string;
  @Property({ length: 64 }) parentDecisionId: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  @Property({ length: 64 }) agentId: string;
  @Property({ length: 32 }) bias: string;
  @Property({ columnType: 'timestamptz' }) dueAt: Date;
  @Property({ length: 16 }) status: 'scheduled' | 'fired' | 'aborted';
  @Property({ length: 64, nullable: true }) reason: string | null = null;
  @Property({ length: 64, nullable: true }) firedDecisionId: string | null = null;
  @Property({ type: 'json' }) botMessageIds: string[] = [];
  @Property({ columnType: 'timestamptz' }) createdAt: Date = new Date();
}
