import { Migration } from '@mikro-orm/migrations';
import { insertDispositionsSql, type SeededDisposition } from './seed-dispositions';

const MIN = 60_000;

/**
 * The ten canonical dispositions as this migration seeds them: its own copy, so that what it
 * writes never changes with the code (`CANONICAL_DISPOSITIONS` of `@dirigent/router-domain`
 * is today's set; `seed-dispositions.unit.spec.ts` checks the migrations reach it).
 */
export const SEEDED_DISPOSITIONS: readonly SeededDisposition[] = [
  {
    id: 'silent-listen',
    name: 'Silent listen',
    reasoningDepth: 'low',
    contextStrategy: 'none',
    voice: 'indifferent',
    outputShape: 'silent',
    searchPosture: 'none',
    riskAppetite: 'safe',
  },
  {
    id: 'vibing',
    name: 'Vibing',
    reasoningDepth: 'low',
    contextStrategy: 'narrow-live',
    voice: 'present-reaction',
    outputShape: 'react-only',
    searchPosture: 'none',
    riskAppetite: 'safe',
    selfFollowupHint: { probability: 0.05, bias: 'go-deeper', windowMs: [MIN / 2, 2 * MIN] },
  },
  {
    id: 'quick-react',
    name: 'Quick react',
    reasoningDepth: 'low',
    contextStrategy: 'live',
    voice: 'playful',
    outputShape: 'single-line',
    searchPosture: 'none',
    riskAppetite: 'safe',
    selfFollowupHint: { probability: 0.1, bias: 'go-deeper', windowMs: [MIN / 2, 2 * MIN] },
  },
  {
    id: 'roast-back',
    name: 'Roast back',
    reasoningDepth: 'medium',
    contextStrategy: 'archive-person-deep',
    voice: 'sharp',
    outputShape: 'single-line',
    searchPosture: 'person-deep',
    riskAppetite: 'spicy',
  },
  {
    id: 'factual-recall',
    name: 'Factual recall',
    reasoningDepth: 'low',
    contextStrategy: 'live+lore',
    voice: 'deadpan',
    outputShape: 'single-line',
    searchPosture: 'none',
    riskAppetite: 'safe',
  },
  {
    id: 'callback-from-memory',
    name: 'Callback from memory',
    reasoningDepth: 'high',
    contextStrategy: 'callback-primed',
    voice: 'nostalgic',
    outputShape: 'multi-line',
    searchPosture: 'callback-hunt',
    riskAppetite: 'safe',
  },
  {
    id: 'settle-debate',
    name: 'Settle debate',
    reasoningDepth: 'high',
    contextStrategy: 'contrasting',
    voice: 'sincere',
    outputShape: 'burst',
    searchPosture: 'contradiction-hunt',
    riskAppetite: 'safe',
    selfFollowupHint: { probability: 0.3, bias: 'add-nuance', windowMs: [MIN, 5 * MIN] },
  },
  {
    id: 'contrarian-take',
    name: 'Contrarian take',
    reasoningDepth: 'high',
    contextStrategy: 'cross-channel-similar',
    voice: 'contrarian',
    outputShape: 'multi-line',
    searchPosture: 'contradiction-hunt',
    riskAppetite: 'spicy',
  },
  {
    id: 'late-night-musing',
    name: 'Late-night musing',
    reasoningDepth: 'high',
    contextStrategy: 'serendipity',
    voice: 'observational',
    outputShape: 'burst',
    searchPosture: 'broad-scan',
    riskAppetite: 'safe',
    speculativeOnly: true,
    selfFollowupHint: { probability: 0.4, bias: 'add-nuance', windowMs: [5 * MIN, 20 * MIN] },
  },
  {
    id: 'observation-drop',
    name: 'Observation drop',
    reasoningDepth: 'medium',
    contextStrategy: 'bot-history',
    voice: 'observational',
    outputShape: 'single-line',
    searchPosture: 'broad-scan',
    riskAppetite: 'safe',
    speculativeOnly: true,
  },
];

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
    this.addSql(insertDispositionsSql(SEEDED_DISPOSITIONS));
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
