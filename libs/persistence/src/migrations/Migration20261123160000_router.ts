import { Migration } from '@mikro-orm/migrations';

const MIN = 60_000;
type Row = [string, string, string, string, string, string, string, string, boolean, unknown];

/** The ten canonical dispositions as seeded (later edits go through dirigent.admin.disposition.*). */
const CANONICAL: Row[] = [
  [
    'silent-listen',
    'Silent listen',
    'low',
    'none',
    'indifferent',
    'silent',
    'none',
    'safe',
    false,
    null,
  ],
  [
    'vibing',
    'Vibing',
    'low',
    'narrow-live',
    'present-reaction',
    'react-only',
    'none',
    'safe',
    false,
    { probability: 0.05, bias: 'go-deeper', windowMs: [MIN / 2, 2 * MIN] },
  ],
  [
    'quick-react',
    'Quick react',
    'low',
    'live',
    'playful',
    'single-line',
    'none',
    'safe',
    false,
    { probability: 0.1, bias: 'go-deeper', windowMs: [MIN / 2, 2 * MIN] },
  ],
  [
    'roast-back',
    'Roast back',
    'medium',
    'archive-person-deep',
    'sharp',
    'single-line',
    'person-deep',
    'spicy',
    false,
    null,
  ],
  [
    'factual-recall',
    'Factual recall',
    'low',
    'live+lore',
    'deadpan',
    'single-line',
    'none',
    'safe',
    false,
    null,
  ],
  [
    'callback-from-memory',
    'Callback from memory',
    'high',
    'callback-primed',
    'nostalgic',
    'multi-line',
    'callback-hunt',
    'safe',
    false,
    null,
  ],
  [
    'settle-debate',
    'Settle debate',
    'high',
    'contrasting',
    'sincere',
    'burst',
    'contradiction-hunt',
    'safe',
    false,
    { probability: 0.3, bias: 'add-nuance', windowMs: [MIN, 5 * MIN] },
  ],
  [
    'contrarian-take',
    'Contrarian take',
    'high',
    'cross-channel-similar',
    'contrarian',
    'multi-line',
    'contradiction-hunt',
    'spicy',
    false,
    null,
  ],
  [
    'late-night-musing',
    'Late-night musing',
    'high',
    'serendipity',
    'observational',
    'burst',
    'broad-scan',
    'safe',
    true,
    { probability: 0.4, bias: 'add-nuance', windowMs: [5 * MIN, 20 * MIN] },
  ],
  [
    'observation-drop',
    'Observation drop',
    'medium',
    'bot-history',
    'observational',
    'single-line',
    'broad-scan',
    'safe',
    true,
    null,
  ],
];

const literal = (v: unknown) =>
  v === null ? 'null' : typeof v === 'boolean' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;

/** The router: dispositions (seeded), the decision log, research runs and self-follow-ups. */
export class Migration20261123160000_router extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "dispositions" (
      "id" varchar(64) not null primary key,
      "name" varchar(100) not null,
      "reasoning_depth" varchar(16) not null,
      "context_strategy" varchar(32) not null,
      "voice" varchar(32) not null,
      "output_shape" varchar(16) not null,
      "search_posture" varchar(32) not null,
      "risk_appetite" varchar(8) not null,
      "speculative_only" boolean not null default false,
      "self_followup_hint" jsonb null,
      "weight" double precision not null default 1,
      "updated_at" timestamptz not null default now()
    );`);
    const values = CANONICAL.map((r) =>
      [...r.slice(0, 9), r[9] === null ? null : JSON.stringify(r[9])].map(literal).join(', '),
    );
    this.addSql(
      `insert into "dispositions" ("id", "name", "reasoning_depth", "context_strategy", "voice", "output_shape", "search_posture", "risk_appetite", "speculative_only", "self_followup_hint") values ${values.map((v) => `(${v})`).join(', ')};`,
    );
    this.addSql(`create table "disposition_decisions" (
      "decision_id" varchar(64) not null primary key,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "agent_id" varchar(64) not null,
      "trigger" varchar(16) not null,
      "inbound_message_id" varchar(20) null,
      "parent_decision_id" varchar(64) null,
      "followup_id" varchar(64) null,
      "chosen" varchar(64) not null,
      "seed" varchar(200) not null,
      "candidates" jsonb not null,
      "dimensions" jsonb not null,
      "subagents" jsonb not null default '[]',
      "beats" jsonb not null default '[]',
      "reaction" varchar(100) null,
      "followup" jsonb null,
      "interrupted" jsonb null,
      "latency_ms" integer not null,
      "cost_usd" double precision not null default 0,
      "models" jsonb not null default '[]',
      "at" timestamptz not null
    );`);
    this.addSql(
      `create index "disposition_decisions_channel_at_idx" on "disposition_decisions" ("guild_id", "channel_id", "at" desc);`,
    );
    this.addSql(
      `create index "disposition_decisions_guild_at_idx" on "disposition_decisions" ("guild_id", "at" desc);`,
    );
    this.addSql(`create table "subagent_runs" (
      "id" bigserial primary key,
      "decision_id" varchar(64) not null,
      "persona" varchar(32) not null,
      "lens" varchar(32) not null,
      "status" varchar(16) not null,
      "duration_ms" integer not null,
      "model" varchar(200) null,
      "cost_usd" double precision not null default 0,
      "output" text not null default ''
    );`);
    this.addSql(`create index "subagent_runs_decision_idx" on "subagent_runs" ("decision_id");`);
    this.addSql(`create table "self_followup_schedules" (
      "followup_id" varchar(64) not null primary key,
      "parent_decision_id" varchar(64) not null,
      "guild_id" varchar(20) not null,
      "channel_id" varchar(20) not null,
      "agent_id" varchar(64) not null,
      "bias" varchar(32) not null,
      "due_at" timestamptz not null,
      "status" varchar(16) not null,
      "reason" varchar(64) null,
      "fired_decision_id" varchar(64) null,
      "bot_message_ids" jsonb not null default '[]',
      "created_at" timestamptz not null default now()
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "self_followup_schedules";`);
    this.addSql(`drop table if exists "subagent_runs";`);
    this.addSql(`drop table if exists "disposition_decisions";`);
    this.addSql(`drop table if exists "dispositions";`);
  }
}
