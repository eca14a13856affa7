import { Migration } from '@mikro-orm/migrations';

/** A decision records the skill tool calls of its turn. Additive: older rows have none. */
export class Migration20261128033000_decision_tool_calls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "disposition_decisions" add column "tool_calls" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "disposition_decisions" drop column if exists "tool_calls";`);
  }
}
