import { Migration } from '@mikro-orm/migrations';

/**
 * The event store stream a checkpoint's sequence belongs to (its creation time): a stream
 * deleted and created again restarts at 1, and its projections then rebuild from it.
 */
export class Migration20261128020000_checkpoint_stream extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "projection_checkpoint" add column if not exists "stream_created" varchar(64) null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "projection_checkpoint" drop column if exists "stream_created";`);
  }
}
