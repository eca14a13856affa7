import { Migration } from '@mikro-orm/migrations';

/**
 * Which gateway instance holds which part of a guild's reservations, and the instances'
 * heartbeats: a crashed instance's reservations are released by the others.
 */
export class Migration20261122150000_llm_reservation_holders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "llm_gateway_instance" (
      "instance_id" uuid not null primary key,
      "started_at" timestamptz not null default now(),
      "heartbeat_at" timestamptz not null default now()
    );`);
    this.addSql(`create table "llm_reservation_holder" (
      "guild_id" varchar(64) not null,
      "day" date not null,
      "instance_id" uuid not null,
      "reserved_micros" bigint not null default 0 check ("reserved_micros" >= 0),
      primary key ("guild_id", "day", "instance_id")
    );`);
    this.addSql(
      `create index "llm_reservation_holder_instance_idx" on "llm_reservation_holder" ("instance_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "llm_reservation_holder";`);
    this.addSql(`drop table if exists "llm_gateway_instance";`);
  }
}
