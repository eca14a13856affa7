import { Migration } from '@mikro-orm/migrations';

/** Read models of the turn coordinator: identities, channels and the turn timeline. */
export class Migration20261122130000_turn_coordinator extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "tc_identity" (
      "discord_user_id" varchar(20) not null primary key,
      "agent_id" varchar(64) not null,
      "agent_name" varchar(80) null,
      "source" varchar(20) not null,
      "updated_at" timestamptz not null default now()
    );`);
    this.addSql(`create unique index "tc_identity_agent_id_unique" on "tc_identity" ("agent_id");`);
    this.addSql(`create table "tc_channel" (
      "channel_id" varchar(20) not null primary key,
      "guild_id" varchar(20) null,
      "mode" varchar(16) not null,
      "tm_state" varchar(16) not null,
      "speakers" jsonb not null,
      "current_speaker" varchar(64) null,
      "current_turn_id" varchar(120) null,
      "turn_phase" varchar(24) null,
      "cycle" int not null default 0,
      "dormant" boolean not null default false,
      "dormant_reason" varchar(32) null,
      "multi_message" boolean not null default false,
      "shuffle" boolean null,
      "wake_mode" varchar(16) not null,
      "discussion" jsonb null,
      "last_message_id" varchar(20) null,
      "state" jsonb not null,
      "version" bigint not null,
      "updated_at" timestamptz not null default now()
    );`);
    this.addSql(`create index "tc_channel_guild_id_index" on "tc_channel" ("guild_id");`);
    this.addSql(`create table "tc_turn_event" (
      "id" bigserial primary key,
      "channel_id" varchar(20) not null,
      "seq" bigint not null,
      "idx" int not null,
      "type" varchar(40) not null,
      "agent_id" varchar(64) null,
      "turn_id" varchar(120) null,
      "cycle" int null,
      "data" jsonb not null,
      "at" timestamptz not null
    );`);
    this.addSql(
      `create unique index "tc_turn_event_seq_idx_unique" on "tc_turn_event" ("seq", "idx");`,
    );
    this.addSql(
      `create index "tc_turn_event_channel_id_seq_index" on "tc_turn_event" ("channel_id", "seq");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "tc_turn_event";`);
    this.addSql(`drop table if exists "tc_channel";`);
    this.addSql(`drop table if exists "tc_identity";`);
  }
}
