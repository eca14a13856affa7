import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { ReminderStatus } from '@dirigent/contracts';

/** A reminder of the `remind` skill (Migration20261206233000_router_reminders). */
@Entity({ tableName: 'router_reminders' })
export class ReminderRow {
  @PrimaryKey({ length: 32 }) reminderId: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  @Property({ length: 20, nullable: true }) userId: string | null = null;
  @Property({ length: 16 }) target: 'me' | 'channel';
  @Property({ length: 1000 }) text: string;
  @Property({ columnType: 'timestamptz' }) dueAt: Date;
  @Property({ length: 16 }) status: ReminderStatus;
  @Property({ columnType: 'timestamptz' }) createdAt: Date;
  @Property({ columnType: 'timestamptz', nullable: true }) settledAt: Date | null = null;
}
