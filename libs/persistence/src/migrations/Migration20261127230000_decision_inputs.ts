import { Migration } from '@mikro-orm/migrations';

/**
 * A decision keeps what its scores read (`inputs`), the lens it swapped to and a beat not
 * delivered; the disposition sets those scores read are kept by content address, so
 * `Subjects.router.replay` recomputes a decision exactly. Additive: older rows have none.
 */
export class Migration20261127230000_decision_inputs extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "disposition_decisions" add column "inputs" jsonb null, add column "lens_swap" jsonb null, add column "undelivered" jsonb null;`,
    );
    this.addSql(
      `create table "disposition_sets" ("id" varchar(40) not null, "dispositions" jsonb not null, "created_at" timestamptz not null default now(), constraint "disposition_sets_pkey" primary key ("id"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "disposition_sets";`);
    this.addSql(
      `alter table "disposition_decisions" drop column if exists "inputs", drop column if exists "lens_swap", drop column if exists "undelivered";`,
    );
  }
}
