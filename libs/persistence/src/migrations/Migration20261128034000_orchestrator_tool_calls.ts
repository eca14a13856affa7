import { Migration } from '@mikro-orm/migrations';

/** The orchestrator's decision row records its skill tool calls. Additive: older rows have none. */
export class Migration20261128034000_orchestrator_tool_calls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "orchestrator_runs" add column "tool_calls" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "orchestrator_runs" drop column if exists "tool_calls";`);
  }
}
