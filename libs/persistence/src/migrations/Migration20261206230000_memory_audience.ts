import { Migration } from '@mikro-orm/migrations';

/**
 * Audience: what a channel may see. `memory_channel` holds each channel's current audience
 * (from `message.created` and `channel.updated`); reads made to answer in a channel leave out
 * the other private channels' content. Derived rows keep the channels they were made from:
 * lore and a dossier's body get `source_channel_ids`, set by a trigger from the source
 * messages they already record (and, for lore, its epoch's channel), so no writer can forget
 * them; existing rows are filled the same way. A body from before its sources were recorded
 * counts every channel its person spoke in.
 */
export class Migration20261206230000_memory_audience extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "memory_channel" (
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "name" varchar(100) null,
      "audience" varchar(8) not null,
      "audience_key" varchar(200) null,
      "parent_channel_id" varchar(20) null,
      "updated_at" timestamptz not null,
      primary key ("guild_id", "channel_id")
    );`);
    this.addSql(
      `create index if not exists "memory_channel_private_idx" on "memory_channel" ("guild_id") where "audience" = 'private';`,
    );
    this.addSql(`create or replace function memory_source_channels(g varchar, ids jsonb)
      returns jsonb language sql stable as $$
        select coalesce(jsonb_agg(distinct m.channel_id order by m.channel_id), '[]'::jsonb)
        from memory_message m
        where m.guild_id = g and m.message_id in (select jsonb_array_elements_text(ids))
      $$;`);
    this.addSql(
      `alter table "memory_lore" add column if not exists "source_channel_ids" jsonb not null default '[]';`,
    );
    this.addSql(
      `alter table "memory_dossier" add column if not exists "source_channel_ids" jsonb not null default '[]';`,
    );
    this.addSql(`create or replace function memory_lore_source_channels() returns trigger
      language plpgsql as $$ begin
        new.source_channel_ids := (
          select coalesce(jsonb_agg(distinct c order by c), '[]'::jsonb) from (
            select jsonb_array_elements_text(memory_source_channels(new.guild_id, new.source_message_ids)) c
            union select e.channel_id from memory_epoch e where e.id = new.source_epoch_id
          ) s);
        return new;
      end $$;`);
    this.addSql(`create or replace function memory_dossier_source_channels() returns trigger
      language plpgsql as $$ begin
        new.source_channel_ids := memory_source_channels(new.guild_id, new.body_source_ids);
        return new;
      end $$;`);
    this.addSql(`drop trigger if exists memory_lore_source_channels on memory_lore;`);
    this.addSql(`create trigger memory_lore_source_channels
      before insert or update of source_message_ids, source_epoch_id on memory_lore
      for each row execute function memory_lore_source_channels();`);
    this.addSql(`drop trigger if exists memory_dossier_source_channels on memory_dossier;`);
    this.addSql(`create trigger memory_dossier_source_channels
      before insert or update of body_source_ids on memory_dossier
      for each row execute function memory_dossier_source_channels();`);
    // Existing rows: the triggers' rule, once.
    this.addSql(`update memory_lore set source_message_ids = source_message_ids;`);
    this.addSql(`update memory_dossier set body_source_ids = body_source_ids;`);
    this.addSql(`update memory_dossier d set source_channel_ids = coalesce(
      (select jsonb_agg(distinct m.channel_id order by m.channel_id) from memory_message m
        where m.guild_id = d.guild_id and m.author_id = d.user_id), '[]'::jsonb)
      where d.body <> '' and d.body_source_ids = '[]'::jsonb;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists memory_dossier_source_channels on memory_dossier;`);
    this.addSql(`drop trigger if exists memory_lore_source_channels on memory_lore;`);
    this.addSql(`drop function if exists memory_dossier_source_channels();`);
    this.addSql(`drop function if exists memory_lore_source_channels();`);
    this.addSql(`drop function if exists memory_source_channels(varchar, jsonb);`);
    this.addSql(`alter table "memory_dossier" drop column if exists "source_channel_ids";`);
    this.addSql(`alter table "memory_lore" drop column if exists "source_channel_ids";`);
    this.addSql(`drop table if exists "memory_channel";`);
  }
}
