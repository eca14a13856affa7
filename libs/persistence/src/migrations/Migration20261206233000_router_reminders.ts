import { Migration } from '@mikro-orm/migrations';

/**
 * Reminders of the `remind` skill, durable: listed per guild and member and cancelled from
 * here, and armed again on the router's durable timer at start (a kill between the row
 * and its timer). A reminder fires at most once (`status` moves from `scheduled` once).
 */
export class Migration20261206233000_router_reminders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "router_reminders" (
      "reminder_id" varchar(32) not null primary key,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "user_id" varchar(20) null,
      "target" varchar(16) not null,
      "text" varchar(1000) not null,
      "due_at" timestamptz not null,
      "status" varchar(16) not null,
      "created_at" timestamptz not null,
      "settled_at" timestamptz null
    );`);
    this.addSql(
      `create index if not exists "router_reminders_guild_scheduled_index" on "router_reminders" ("guild_id", "due_at") where "status" = 'scheduled';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "router_reminders";`);
  }
}
