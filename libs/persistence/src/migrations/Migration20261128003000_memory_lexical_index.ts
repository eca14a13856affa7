import { Migration } from '@mikro-orm/migrations';

/**
 * The archive's words are searched in process now (memory's lexical index, typos by edit
 * distance there): the trigram index on `memory_message.content` serves no query, and it
 * was the costliest index of every insert (a GIN update per trigram of each message).
 */
export class Migration20261128003000_memory_lexical_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists "memory_message_content_trgm_idx";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `create index if not exists "memory_message_content_trgm_idx" on "memory_message" using gin ("content" gin_trgm_ops);`,
    );
  }
}
