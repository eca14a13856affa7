import { Migration } from '@mikro-orm/migrations';

/**
 * The epoch closes running in any replica: a `forget` waits for those of its guild (one may
 * have read the user's messages before the forget and write its epoch after).
 */
export class Migration20261129093000_memory_epoch_closing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "memory_epoch_closing" (
      "id" varchar(36) not null primary key,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "started_at" timestamptz not null default now()
    );`);
    this.addSql(
      `create index if not exists "memory_epoch_closing_guild_idx" on "memory_epoch_closing" ("guild_id", "started_at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "memory_epoch_closing";`);
  }
}
