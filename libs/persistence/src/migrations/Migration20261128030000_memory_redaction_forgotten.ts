import { Migration } from '@mikro-orm/migrations';

/**
 * A `forget`'s redaction job keeps the forgotten user's display names and hashes of what
 * they said (never their words), so that the dossier bodies of others, written again
 * (retried after any restart), leave out their names and what quotes them.
 */
export class Migration20261128030000_memory_redaction_forgotten extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "memory_redaction" add column if not exists "names" jsonb not null default '[]',
         add column if not exists "quotes" jsonb not null default '[]';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "memory_redaction" drop column if exists "names", drop column if exists "quotes";`,
    );
  }
}
