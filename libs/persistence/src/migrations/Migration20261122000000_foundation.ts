import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "projection_checkpoint" (
      "name" varchar(200) not null primary key,
      "last_seq" bigint not null,
      "updated_at" timestamptz not null default now()
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "projection_checkpoint";`);
  }
}
