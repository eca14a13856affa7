import { Migration } from '@mikro-orm/migrations';

/** The steward's proposal read model (projected from `dirigent.es.proposal.>`). */
export class Migration20261128021000_steward_proposals extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "steward_proposal" (
      "proposal_id" varchar(64) not null primary key,
      "guild_id" varchar(20) not null,
      "status" varchar(16) not null,
      "message_id" varchar(20) null,
      "version" bigint not null,
      "view" jsonb not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null
    );`);
    this.addSql(
      `create index if not exists "steward_proposal_guild_id_status_index" on "steward_proposal" ("guild_id", "status");`,
    );
    this.addSql(
      `create index if not exists "steward_proposal_message_id_index" on "steward_proposal" ("message_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "steward_proposal";`);
  }
}
