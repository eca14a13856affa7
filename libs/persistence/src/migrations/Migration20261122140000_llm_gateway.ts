import { Migration } from '@mikro-orm/migrations';

/** The model gateway: per-guild daily spend, usage ledger and the run-time policy overrides. */
export class Migration20261122140000_llm_gateway extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "llm_guild_spend" (
      "guild_id" varchar(64) not null,
      "day" date not null,
      "spent_micros" bigint not null default 0,
      "reserved_micros" bigint not null default 0,
      "updated_at" timestamptz not null default now(),
      primary key ("guild_id", "day"),
      constraint "llm_guild_spend_non_negative" check ("spent_micros" >= 0 and "reserved_micros" >= 0)
    );`);
    this.addSql(`create table "llm_usage" (
      "id" uuid not null primary key,
      "at" timestamptz not null,
      "guild_id" varchar(64) not null,
      "purpose" varchar(64) null,
      "kind" varchar(16) not null,
      "stream" boolean not null,
      "requested_model" varchar(200) not null,
      "model" varchar(200) null,
      "provider" varchar(200) null,
      "input_tokens" integer not null,
      "output_tokens" integer not null,
      "reserved_usd" numeric(18,6) not null,
      "cost_usd" numeric(18,6) not null,
      "latency_ms" integer not null,
      "outcome" varchar(32) not null,
      "error" text null,
      "fallbacks" jsonb not null default '[]',
      "attempts" integer not null
    );`);
    this.addSql(`create index "llm_usage_guild_at_idx" on "llm_usage" ("guild_id", "at");`);
    this.addSql(`create table "llm_purpose_policy" (
      "purpose" varchar(64) not null primary key,
      "model" varchar(200) not null,
      "fallbacks" jsonb not null default '[]',
      "updated_at" timestamptz not null default now()
    );`);
    this.addSql(`create table "llm_guild_budget" (
      "guild_id" varchar(64) not null primary key,
      "usd_per_day" numeric(18,6) not null check ("usd_per_day" >= 0),
      "updated_at" timestamptz not null default now()
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "llm_guild_budget";`);
    this.addSql(`drop table if exists "llm_purpose_policy";`);
    this.addSql(`drop table if exists "llm_usage";`);
    this.addSql(`drop table if exists "llm_guild_spend";`);
  }
}
