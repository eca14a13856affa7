import { Migration } from '@mikro-orm/migrations';

/**
 * A running epoch close says it is alive every second or so: a `forget` stops waiting for a
 * close whose replica was killed once it has been silent for a few seconds, not after the
 * longest a live close may take.
 */
export class Migration20261129113000_memory_epoch_closing_alive extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "memory_epoch_closing" add column if not exists "alive_at" timestamptz not null default now();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "memory_epoch_closing" drop column if exists "alive_at";`);
  }
}
