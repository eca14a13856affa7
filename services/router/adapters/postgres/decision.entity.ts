import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type {
  RouterDecisionInputs,
  RouterDecisionLineage,
  RouterDecisionTimings,
  RouterToolCall,
  RouterUndelivered,
} from '@dirigent/contracts';
import type { LensSwap } from '@dirigent/router-domain';

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
  /** Migration20261127230000_decision_inputs: what the scores read, for an exact replay. */
  @Property({ type: 'json', nullable: true }) inputs: RouterDecisionInputs | null = null;
  @Property({ type: 'json', nullable: true }) lensSwap: LensSwap | null = null;
  @Property({ type: 'json', nullable: true }) undelivered: RouterUndelivered | null = null;
  /** Migration20261128031000_personas: the persona version the decision read. */
  @Property({ nullable: true }) personaVersion: number | null = null;
  /** Migration20261128033000_decision_tool_calls: the skill tool calls of the turn. */
  @Property({ type: 'json', nullable: true }) toolCalls: RouterToolCall[] | null = null;
  @Property() latencyMs: number;
  @Property({ type: 'json', nullable: true }) timings: RouterDecisionTimings | null = null;
  @Property({ type: 'double' }) costUsd = 0;
  @Property({ type: 'json' }) models: string[] = [];
  @Property({ columnType: 'timestamptz' }) at: Date;
}
