import { Migration } from '@mikro-orm/migrations';

/** The steps an approved restructure ran, one row per proposal and step (`steward_restructure_step`). */
export class Migration20261207000000_steward_restructure_steps extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "steward_restructure_step" (
      "proposal_id" varchar(64) not null,
      "step_index" int not null,
      "status" varchar(16) not null,
      "text" varchar(300) not null,
      "result" jsonb null,
      "error" varchar(500) null,
      "updated_at" timestamptz not null,
      primary key ("proposal_id", "step_index")
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "steward_restructure_step";`);
  }
}
