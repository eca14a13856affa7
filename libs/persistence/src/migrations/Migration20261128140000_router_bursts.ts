import { Migration } from '@mikro-orm/migrations';

/**
 * A burst's plan, durable: which beats of its decision went out and whether a human message
 * claimed it (`router_inbound.claimed_by`, written in the same insert that records the
 * message), so a router restarted mid-burst judges the interruption from that message or
 * sends the beats still due.
 */
export class Migration20261128140000_router_bursts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "router_bursts" (
      "decision_id" varchar(64) not null primary key,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "agent_id" varchar(64) not null,
      "disposition_id" varchar(64) not null,
      "status" varchar(16) not null,
      "sent" int not null default 0,
      "sent_ids" jsonb not null default '[]',
      "updated_at" timestamptz not null
    );`);
    this.addSql(
      `create index if not exists "router_bursts_running_index" on "router_bursts" ("updated_at") where "status" = 'running';`,
    );
    this.addSql(
      `alter table "router_inbound" add column if not exists "claimed_by" varchar(64) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "router_bursts";`);
    this.addSql(`alter table "router_inbound" drop column if exists "claimed_by";`);
  }
}
