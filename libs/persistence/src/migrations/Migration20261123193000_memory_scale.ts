import { Migration } from '@mikro-orm/migrations';

/**
 * Memory at scale: the trigram index on `memory_message.author_name` served no query
 * (people are found by name through `memory_dossier`) and cost every insert a GIN update.
 */
export class Migration20261123193000_memory_scale extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists "memory_message_author_trgm_idx";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `create index if not exists "memory_message_author_trgm_idx" on "memory_message" using gin ("author_name" gin_trgm_ops);`,
    );
  }
}
