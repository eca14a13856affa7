import { Migration } from '@mikro-orm/migrations';

/**
 * Personas (docs/architecture.md, "Persona"): every version of each built-in agent's
 * persona (the active one is the latest), the learning signals that moved its weights
 * (one row per message and signal: a redelivery counts once), the agents' messages with
 * the disposition that produced them, and the persona version each decision read.
 */
export class Migration20261128031000_personas extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "persona_versions" (
      "agent_id" varchar(64) not null,
      "version" int not null,
      "content" jsonb not null,
      "cause" varchar(16) not null,
      "cause_id" varchar(200) null,
      "at" timestamptz not null,
      primary key ("agent_id", "version")
    );`);
    this.addSql(`create table if not exists "persona_signals" (
      "message_id" varchar(20) not null,
      "signal" varchar(200) not null,
      "agent_id" varchar(64) not null,
      "disposition_id" varchar(64) not null,
      "polarity" varchar(8) not null,
      "weight_from" double precision not null,
      "weight_to" double precision not null,
      "version" int null,
      "at" timestamptz not null,
      primary key ("message_id", "signal")
    );`);
    this.addSql(
      `create index if not exists "persona_signals_agent_at_index" on "persona_signals" ("agent_id", "at");`,
    );
    this.addSql(`create table if not exists "persona_messages" (
      "message_id" varchar(20) not null primary key,
      "agent_id" varchar(64) not null,
      "disposition_id" varchar(64) not null,
      "decision_id" varchar(64) not null,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "at" timestamptz not null
    );`);
    this.addSql(
      `alter table "disposition_decisions" add column if not exists "persona_version" int null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "disposition_decisions" drop column if exists "persona_version";`);
    this.addSql(`drop table if exists "persona_messages";`);
    this.addSql(`drop table if exists "persona_signals";`);
    this.addSql(`drop table if exists "persona_versions";`);
  }
}
