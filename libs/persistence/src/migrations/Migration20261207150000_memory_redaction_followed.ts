import { Migration } from '@mikro-orm/migrations';

/**
 * The redaction jobs by when they were recorded: the replicas that hold archive indexes
 * (memory's `queries` role, or any replica beside another) read the deletions and forgets
 * recorded since their last look every second, and drop those messages from their index.
 */
export class Migration20261207150000_memory_redaction_followed extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index if not exists "memory_redaction_created_idx" on "memory_redaction" ("created_at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "memory_redaction_created_idx";`);
  }
}
