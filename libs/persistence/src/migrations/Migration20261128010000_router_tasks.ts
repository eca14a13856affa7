import { Migration } from '@mikro-orm/migrations';

/** Delegated orchestrator jobs, with the process that runs each (a restart fails the dead ones). */
export class Migration20261128010000_router_tasks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "router_tasks" (
      "task_id" uuid not null primary key,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "agent_id" varchar(64) not null,
      "agent_type" varchar(16) not null,
      "inbound_message_id" varchar(20) null,
      "decision_id" uuid null,
      "status" varchar(16) not null,
      "owner" varchar(128) not null,
      "started_at" timestamptz not null,
      "ended_at" timestamptz null,
      "summary" text null
    );`);
    this.addSql(
      `create index if not exists "router_tasks_status_owner_index" on "router_tasks" ("status", "owner");`,
    );
    this.addSql(
      `create index if not exists "router_tasks_channel_id_index" on "router_tasks" ("channel_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "router_tasks";`);
  }
}
