import { Migration } from '@mikro-orm/migrations';

/**
 * Learning per community: the persona's weights stay the admin's baseline; learning keeps
 * an adjustment per (guild, agent, context class, disposition) and each member's one
 * signal per message (the strongest, withdrawable), so a member's ten emojis are one step.
 * A delivered message remembers the context class its decision was made in.
 */
export class Migration20261207001000_learning_per_community extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "learning_adjustments" (
      "guild_id" varchar(20) not null,
      "agent_id" varchar(64) not null,
      "context_class" varchar(8) not null,
      "disposition_id" varchar(64) not null,
      "adjustment" double precision not null default 0,
      "at" timestamptz not null,
      primary key ("guild_id", "agent_id", "context_class", "disposition_id"));`);
    this.addSql(`create table if not exists "learning_signals" (
      "message_id" varchar(20) not null,
      "user_id" varchar(20) not null,
      "guild_id" varchar(20) not null,
      "agent_id" varchar(64) not null,
      "context_class" varchar(8) not null,
      "disposition_id" varchar(64) not null,
      "kind" varchar(16) not null,
      "polarity" varchar(8) not null,
      "delta" double precision not null default 0,
      "reactions" jsonb not null default '[]',
      "withdrawn" boolean not null default false,
      "day" varchar(10) not null,
      "at" timestamptz not null,
      primary key ("message_id", "user_id"));`);
    this.addSql(
      `create index if not exists "learning_signals_member_day" on "learning_signals" ("guild_id", "user_id", "day");`,
    );
    this.addSql(
      `alter table "persona_messages" add column if not exists "context_class" varchar(8) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "persona_messages" drop column if exists "context_class";`);
    this.addSql(`drop table if exists "learning_signals";`);
    this.addSql(`drop table if exists "learning_adjustments";`);
  }
}
