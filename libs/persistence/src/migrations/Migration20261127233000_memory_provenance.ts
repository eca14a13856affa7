import { Migration } from '@mikro-orm/migrations';

/**
 * Memory provenance, so that a deletion reaches every layer that drew on the message:
 * the messages an epoch's summary and topics, a lore item and a dossier body were written
 * from; the durable redaction jobs that revisit them after a deletion or `forget`; the
 * revision and stream sequence of an epoch's `epoch.closed` event (a revised epoch is
 * published again and its old event removed); phrases repeated across a guild (lore from
 * the room) and the moment batch's scan cursor per channel.
 */
export class Migration20261127233000_memory_provenance extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "memory_epoch"
      add column "source_message_ids" jsonb not null default '[]',
      add column "revision" integer not null default 0,
      add column "published_seq" bigint null;`);
    this.addSql(`update "memory_epoch" e set "source_message_ids" = coalesce(
      (select jsonb_agg(m.message_id) from memory_message m
       where m.guild_id = e.guild_id and m.epoch_id = e.id), '[]');`);
    this
      .addSql(`create index "memory_message_epoch_idx" on "memory_message" ("guild_id", "epoch_id")
      where "epoch_id" is not null;`);
    this.addSql(`alter table "memory_lore"
      add column "source_message_ids" jsonb not null default '[]',
      add column "kind" varchar(16) not null default 'epoch';`);
    this.addSql(`update "memory_lore" l set "source_message_ids" = e.source_message_ids
      from memory_epoch e where e.id = l.source_epoch_id;`);
    this.addSql(
      `alter table "memory_dossier" add column "body_source_ids" jsonb not null default '[]';`,
    );
    this.addSql(`create table "memory_redaction" (
      "id" varchar(120) primary key,
      "guild_id" varchar(20) not null,
      "user_id" varchar(20) null,
      "message_ids" jsonb not null default '[]',
      "author_ids" jsonb not null default '[]',
      "created_at" timestamptz not null default now(),
      "attempts" integer not null default 0,
      "last_error" text null,
      "done_at" timestamptz null
    );`);
    this.addSql(
      `create index "memory_redaction_pending_idx" on "memory_redaction" ("created_at") where "done_at" is null;`,
    );
    this.addSql(`create table "memory_phrase" (
      "guild_id" varchar(20) not null,
      "phrase" varchar(200) not null,
      "occurrences" jsonb not null default '[]',
      "uses" integer not null default 0,
      "last_at" timestamptz not null,
      "lore_id" varchar(80) null,
      primary key ("guild_id", "phrase")
    );`);
    this.addSql(
      `create index "memory_phrase_guild_last_idx" on "memory_phrase" ("guild_id", "last_at");`,
    );
    this.addSql(`create table "memory_moment_scan" (
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "scanned_through" timestamptz not null,
      primary key ("guild_id", "channel_id")
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "memory_moment_scan";`);
    this.addSql(`drop table if exists "memory_phrase";`);
    this.addSql(`drop table if exists "memory_redaction";`);
    this.addSql(`alter table "memory_dossier" drop column if exists "body_source_ids";`);
    this.addSql(
      `alter table "memory_lore" drop column if exists "source_message_ids", drop column if exists "kind";`,
    );
    this.addSql(`drop index if exists "memory_message_epoch_idx";`);
    this.addSql(`alter table "memory_epoch" drop column if exists "source_message_ids",
      drop column if exists "revision", drop column if exists "published_seq";`);
  }
}
