import { Migration } from '@mikro-orm/migrations';

/** The orchestrator's run log: its decisions and every delegated agent run. */
export class Migration20261123170000_orchestrator_runs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "orchestrator_runs" (
      "id" uuid not null primary key,
      "orchestration_id" uuid not null,
      "at" timestamptz not null,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) null,
      "trigger" varchar(16) not null,
      "agent_id" varchar(64) null,
      "inbound_message_id" varchar(20) null,
      "agent_type" varchar(16) not null,
      "agent_name" varchar(64) not null,
      "status" varchar(16) not null,
      "input" text not null,
      "output" text not null,
      "error_message" text null,
      "duration_ms" int not null,
      "model" varchar(200) null,
      "input_tokens" int null,
      "output_tokens" int null,
      "cost_usd" numeric(18,6) null,
      "wall_ms" int not null,
      "cancelled" boolean not null
    );`);
    this.addSql(
      `create index "orchestrator_runs_orchestration_id_index" on "orchestrator_runs" ("orchestration_id");`,
    );
    this.addSql(
      `create index "orchestrator_runs_guild_id_at_index" on "orchestrator_runs" ("guild_id", "at");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "orchestrator_runs";`);
  }
}
