import { Migration } from '@mikro-orm/migrations';

/** Why a router decision ran (the reactor's lineage): additive, older rows have none. */
export class Migration20261123190000_decision_lineage extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "disposition_decisions" add column "lineage" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "disposition_decisions" drop column if exists "lineage";`);
  }
}
