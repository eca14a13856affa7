import { Migration } from '@mikro-orm/migrations';

/**
 * Guild-wide memory: the message archive (the live window is its newest rows), reactions,
 * tombstones of deleted messages, dossiers, facts with validity windows, highlights
 * (verbatim), lore, epochs and embeddings. Embeddings are `real[]` scored in process; when
 * the `vector` extension is installed a pgvector table is created too (HNSW indexes are
 * made per dimension by the memory service's pgvector adapter).
 */
export class Migration20261123120000_memory extends Migration {
  override async up(): Promise<void> {
    this.archive();
    this.people();
    this.recollections();
  }

  /** The message archive with its reactions and the tombstones of deleted messages. */
  private archive(): void {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create table "memory_message" (
      "seq" bigserial primary key,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "message_id" varchar(20) not null,
      "author_id" varchar(20) not null,
      "author_name" varchar(100) null,
      "author_is_bot" boolean not null default false,
      "content" text not null,
      "created_at" timestamptz not null,
      "reply_to_message_id" varchar(20) null,
      "mentions" jsonb not null default '[]',
      "reaction_count" integer not null default 0,
      "reply_count" integer not null default 0,
      "quote_count" integer not null default 0,
      "epoch_id" varchar(64) null,
      "tsv" tsvector generated always as (to_tsvector('english', "content")) stored,
      constraint "memory_message_guild_message_unique" unique ("guild_id", "message_id")
    );`);
    this.addSql(`create index "memory_message_tsv_idx" on "memory_message" using gin ("tsv");`);
    this.addSql(
      `create index "memory_message_author_trgm_idx" on "memory_message" using gin ("author_name" gin_trgm_ops);`,
    );
    this.addSql(
      `create index "memory_message_content_trgm_idx" on "memory_message" using gin ("content" gin_trgm_ops);`,
    );
    this.addSql(
      `create index "memory_message_guild_at_idx" on "memory_message" ("guild_id", "created_at" desc);`,
    );
    this.addSql(
      `create index "memory_message_channel_at_idx" on "memory_message" ("guild_id", "channel_id", "created_at" desc);`,
    );
    this.addSql(
      `create index "memory_message_author_at_idx" on "memory_message" ("guild_id", "author_id", "created_at" desc);`,
    );
    this.addSql(
      `create index "memory_message_open_epoch_idx" on "memory_message" ("guild_id", "channel_id", "created_at") where "epoch_id" is null;`,
    );
    this.addSql(`create table "memory_reaction" (
      "guild_id" varchar(20) not null,
      "message_id" varchar(20) not null,
      "user_id" varchar(20) not null,
      "emoji" varchar(100) not null,
      primary key ("guild_id", "message_id", "user_id", "emoji")
    );`);
    this.addSql(`create table "memory_tombstone" (
      "guild_id" varchar(20) not null,
      "message_id" varchar(20) not null,
      "deleted_at" timestamptz not null default now(),
      primary key ("guild_id", "message_id")
    );`);
  }

  /** Dossiers and their facts. */
  private people(): void {
    this.addSql(`create table "memory_dossier" (
      "guild_id" varchar(20) not null,
      "user_id" varchar(20) not null,
      "user_name" varchar(100) null,
      "body" text not null default '',
      "signals" jsonb not null default '{}',
      "message_count" integer not null default 0,
      "messages_since" integer not null default 0,
      "chars_since" integer not null default 0,
      "last_seen_at" timestamptz null,
      "last_consolidated_at" timestamptz null,
      "tsv" tsvector generated always as (to_tsvector('english', coalesce("user_name", '') || ' ' || "body")) stored,
      primary key ("guild_id", "user_id")
    );`);
    this.addSql(`create index "memory_dossier_tsv_idx" on "memory_dossier" using gin ("tsv");`);
    this.addSql(`create table "memory_fact" (
      "id" varchar(80) primary key,
      "guild_id" varchar(20) not null,
      "user_id" varchar(20) not null,
      "key" varchar(80) not null,
      "value" varchar(200) not null,
      "statement" text not null,
      "source_message_id" varchar(20) null,
      "channel_id" varchar(20) null,
      "valid_from" timestamptz not null,
      "valid_until" timestamptz null,
      "superseded_by" varchar(80) null,
      "tsv" tsvector generated always as (to_tsvector('english', "statement")) stored
    );`);
    this.addSql(`create index "memory_fact_tsv_idx" on "memory_fact" using gin ("tsv");`);
    this.addSql(
      `create unique index "memory_fact_current_idx" on "memory_fact" ("guild_id", "user_id", "key") where "valid_until" is null;`,
    );
  }

  /** Highlights, lore, epochs and embeddings (pgvector when installed). */
  private recollections(): void {
    this.addSql(`create table "memory_highlight" (
      "id" varchar(40) primary key,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "message_id" varchar(20) not null,
      "author_id" varchar(20) not null,
      "author_name" varchar(100) null,
      "raw_text" text not null,
      "kind" varchar(32) not null,
      "score" real not null default 1,
      "at" timestamptz not null,
      "created_at" timestamptz not null default now(),
      "tsv" tsvector generated always as (to_tsvector('english', "raw_text")) stored,
      constraint "memory_highlight_guild_message_unique" unique ("guild_id", "message_id")
    );`);
    this.addSql(`create index "memory_highlight_tsv_idx" on "memory_highlight" using gin ("tsv");`);
    this.addSql(`create table "memory_lore" (
      "id" varchar(80) primary key,
      "guild_id" varchar(20) not null,
      "text" text not null,
      "source_epoch_id" varchar(64) null,
      "valid_from" timestamptz not null,
      "valid_until" timestamptz null,
      "superseded_by" varchar(80) null,
      "tsv" tsvector generated always as (to_tsvector('english', "text")) stored
    );`);
    this.addSql(`create index "memory_lore_tsv_idx" on "memory_lore" using gin ("tsv");`);
    this.addSql(
      `create index "memory_lore_guild_idx" on "memory_lore" ("guild_id", "valid_from" desc);`,
    );
    this.addSql(`create table "memory_epoch" (
      "id" varchar(64) primary key,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "start_at" timestamptz not null,
      "end_at" timestamptz not null,
      "message_count" integer not null,
      "participants" jsonb not null default '[]',
      "summary" text not null,
      "topics" jsonb not null default '[]',
      "created_at" timestamptz not null default now(),
      "published_at" timestamptz null,
      "tsv" tsvector generated always as (to_tsvector('english', "summary" || ' ' || "topics"::text)) stored
    );`);
    this.addSql(`create index "memory_epoch_tsv_idx" on "memory_epoch" using gin ("tsv");`);
    this.addSql(
      `create index "memory_epoch_guild_idx" on "memory_epoch" ("guild_id", "end_at" desc);`,
    );
    this.addSql(`create table "memory_embedding" (
      "seq" bigserial primary key,
      "guild_id" varchar(20) not null,
      "layer" varchar(16) not null,
      "ref_id" varchar(80) not null,
      "model" varchar(120) not null,
      "vector" real[] not null,
      constraint "memory_embedding_ref_unique" unique ("guild_id", "layer", "ref_id", "model")
    );`);
    this.addSql(
      `create index "memory_embedding_guild_seq_idx" on "memory_embedding" ("guild_id", "model", "seq");`,
    );
    this.addSql(`do $$ begin
      if exists (select 1 from pg_available_extensions where name = 'vector') then
        create extension if not exists vector;
        create table if not exists "memory_embedding_pgv" (
          "guild_id" varchar(20) not null,
          "layer" varchar(16) not null,
          "ref_id" varchar(80) not null,
          "model" varchar(120) not null,
          "dim" integer not null,
          "embedding" vector not null,
          primary key ("guild_id", "layer", "ref_id", "model")
        );
      end if;
    end $$;`);
  }

  override async down(): Promise<void> {
    for (const t of [
      'memory_embedding_pgv',
      'memory_embedding',
      'memory_epoch',
      'memory_lore',
      'memory_highlight',
      'memory_fact',
      'memory_dossier',
      'memory_tombstone',
      'memory_reaction',
      'memory_message',
    ]) {
      this.addSql(`drop table if exists "${t}";`);
    }
  }
}
