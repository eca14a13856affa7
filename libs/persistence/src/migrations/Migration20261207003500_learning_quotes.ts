import { Migration } from '@mikro-orm/migrations';

/**
 * Learning signals from the room: a delivered message keeps its text, so a later human
 * message quoting it is a signal; a channel's recent lines are read by channel and time.
 */
export class Migration20261207003500_learning_quotes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "persona_messages" add column if not exists "content" text null;`);
    this.addSql(
      `create index if not exists "persona_messages_channel_at" on "persona_messages" ("guild_id", "channel_id", "at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "persona_messages_channel_at";`);
    this.addSql(`alter table "persona_messages" drop column if exists "content";`);
  }
}
