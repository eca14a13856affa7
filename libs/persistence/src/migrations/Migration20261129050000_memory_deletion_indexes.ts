import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for what a deletion and a `forget` look up: the facts drawn from a message (and
 * the facts they had superseded, restored when they go; a search hit's "stale" mark reads
 * the same index), and a user's facts, highlights and reactions. Each scanned the guild's
 * rows of its table before.
 */
export class Migration20261129050000_memory_deletion_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index if not exists "memory_fact_source_idx" on "memory_fact" ("guild_id", "source_message_id");`,
    );
    this.addSql(
      `create index if not exists "memory_fact_superseded_idx" on "memory_fact" ("guild_id", "superseded_by");`,
    );
    this.addSql(
      `create index if not exists "memory_fact_user_idx" on "memory_fact" ("guild_id", "user_id");`,
    );
    this.addSql(
      `create index if not exists "memory_highlight_author_idx" on "memory_highlight" ("guild_id", "author_id");`,
    );
    this.addSql(
      `create index if not exists "memory_reaction_user_idx" on "memory_reaction" ("guild_id", "user_id");`,
    );
  }

  override async down(): Promise<void> {
    for (const index of [
      'memory_reaction_user_idx',
      'memory_highlight_author_idx',
      'memory_fact_user_idx',
      'memory_fact_superseded_idx',
      'memory_fact_source_idx',
    ]) {
      this.addSql(`drop index if exists "${index}";`);
    }
  }
}
