import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { RouterDecisionLineage } from '@dirigent/contracts';
import type { SelfFollowupHint } from '@dirigent/router-domain';

// Tables of Migration20261123160000_router.

/** A disposition of the router's global persona set (seeded with the ten canonical ones). */
@Entity({ tableName: 'dispositions' })
export class DispositionRow {
  @PrimaryKey({ length: 64 }) id: string;
  @Property({ length: 100 }) name: string;
  @Property({ length: 16 }) reasoningDepth: string;
  @Property({ length: 32 }) contextStrategy: string;
  @Property({ length: 32 }) voice: string;
  @Property({ length: 16 }) outputShape: string;
  @Property({ length: 32 }) searchPosture: string;
  @Property({ length: 8 }) riskAppetite: string;
  @Property() speculativeOnly = false;
  @Property({ type: 'json', nullable: true }) selfFollowupHint: SelfFollowupHint | null = null;
  @Property({ type: 'double' }) weight = 1;
  @Property({ columnType: 'timestamptz' }) updatedAt: Date = new Date();
}

/** One routing decision, as published on `…decision`. */
@Entity({ tableName: 'disposition_decisions' })
export class DecisionRow {
  @PrimaryKey({ length: 64 }) decisionId: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  @Property({ length: 64 }) agentId: string;
  @Property({ length: 16 }) trigger: string;
  @Property({ length: 20, nullable: true }) inboundMessageId: string | null = null;
  @Property({ length: 64, nullable: true }) parentDecisionId: string | null = null;
  @Property({ length: 64, nullable: true }) followupId: string | null = null;
  @Property({ length: 64 }) chosen: string;
  @Property({ length: 200 }) seed: string;
  @Property({ type: 'json' }) candidates: { dispositionId: string; score: number }[];
  @Property({ type: 'json' }) dimensions: Record<string, string>;
  @Property({ type: 'json' }) subagents: string[] = [];
  @Property({ type: 'json' }) beats: { text: string; isCorrection?: boolean }[] = [];
  @Property({ length: 100, nullable: true }) reaction: string | null = null;
  @Property({ type: 'json', nullable: true }) followup: {
    followupId: string;
    bias: string;
    dueAt: string;
  } | null = null;
  @Property({ type: 'json', nullable: true }) interrupted: {
    atBeat: number;
    action: 'abort' | 'fold' | 'continue';
  } | null = null;
  /** Migration20261123190000_decision_lineage. */
  @Property({ type: 'json', nullable: true }) lineage: RouterDecisionLineage | null = null;
  @Property() latencyMs: number;
  @Property({ type: 'double' }) costUsd = 0;
  @Property({ type: 'json' }) models: string[] = [];
  @Property({ columnType: 'timestamptz' }) at: Date;
}

/** One research persona's run for a decision. */
@Entity({ tableName: 'subagent_runs' })
export class SubagentRunRow {
  @PrimaryKey({ type: 'bigint', autoincrement: true }) id: string;
  @Property({ length: 64 }) decisionId: string;
  @Property({ length: 32 }) persona: string;
  @Property({ length: 32 }) lens: string;
  @Property({ length: 16 }) status: string;
  @Property() durationMs: number;
  @Property({ length: 200, nullable: true }) model: string | null = null;
  @Property({ type: 'double' }) costUsd = 0;
  @Property({ type: 'text' }) output = '';
}

/** A self-follow-up's lifecycle: scheduled, then fired or aborted (once). */
@Entity({ tableName: 'self_followup_schedules' })
export class FollowupRow {
  @PrimaryKey({ length: 64 }) followupId: string;
  @Property({ length: 64 }) parentDecisionId: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  @Property({ length: 64 }) agentId: string;
  @Property({ length: 32 }) bias: string;
  @Property({ columnType: 'timestamptz' }) dueAt: Date;
  @Property({ length: 16 }) status: 'scheduled' | 'fired' | 'aborted';
  @Property({ length: 64, nullable: true }) reason: string | null = null;
  @Property({ length: 64, nullable: true }) firedDecisionId: string | null = null;
  @Property({ type: 'json' }) botMessageIds: string[] = [];
  @Property({ columnType: 'timestamptz' }) createdAt: Date = new Date();
}

export const routerEntities = [DispositionRow, DecisionRow, SubagentRunRow, FollowupRow];
