import { Migration } from '@mikro-orm/migrations';

/**
 * The router's durable inbox: a message is written here before its Discord event is
 * acknowledged, settled once every agent's turn on it has run, and an open row is resumed
 * after a restart. Decisions are looked up by the message and by the follow-up they ran for,
 * and keep their timings (reading the room, the pure decision).
 */
export class Migration20261128032000_router_inbound extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "router_inbound" (
      "message_id" varchar(20) not null primary key,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "event_id" varchar(128) null,
      "message" jsonb not null,
      "received_at" timestamptz not null,
      "settled_at" timestamptz null
    );`);
    this.addSql(
      `create index if not exists "router_inbound_open_index" on "router_inbound" ("received_at") where "settled_at" is null;`,
    );
    this.addSql(
      `alter table "disposition_decisions" add column if not exists "timings" jsonb null;`,
    );
    this.addSql(
      `create index if not exists "disposition_decisions_inbound_index" on "disposition_decisions" ("inbound_message_id", "agent_id");`,
    );
    this.addSql(
      `create index if not exists "disposition_decisions_followup_index" on "disposition_decisions" ("followup_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "router_inbound";`);
    this.addSql(`drop index if exists "disposition_decisions_inbound_index";`);
    this.addSql(`drop index if exists "disposition_decisions_followup_index";`);
    this.addSql(`alter table "disposition_decisions" drop column if exists "timings";`);
  }
}
