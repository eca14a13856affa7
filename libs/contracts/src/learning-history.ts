import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { ContextClass } from './learning';
import { AgentId, Snowflake } from './rules';
import { createValidated } from './validation';

// The control page's engagement view: `dirigent.admin.learning.history`
// (docs/architecture.md, "Seen and tried before use").

/**
 * `dirigent.admin.learning.history`: how a guild took an agent's turns and how its learned
 * weights moved, per context class and disposition (the control page's engagement view).
 */
export class LearningHistoryRequest {
  @Snowflake() guildId: string;
  @AgentId() agentId: string;
  /** How far back, in days (default 30). */
  @IsOptional() @IsInt() @Min(1) @Max(90) days?: number;
  static create(input: unknown) {
    return createValidated(LearningHistoryRequest, input);
  }
}

/** A (context class, disposition)'s turns that posted and what people made of them. */
export interface LearningEngagement {
  contextClass: ContextClass;
  dispositionId: string;
  /** Turns that posted at least one message. */
  posts: number;
  /** Of them: a member's positive signal stands (reaction, reply, quote …). */
  engaged: number;
  /** Of them: the room judged the line `ignored`. */
  ignored: number;
  /** Of them: a member's negative signal stands (reaction, rebuke …). */
  negative: number;
  /** Signals kept (withdrawn ones left out) by `cause.signal` kind, kinds not known here included. */
  signals: Record<string, number>;
}

/** One `learning.adjusted` step and the effective weight it left (baseline + adjustment, bounded). */
export interface LearningHistoryStep {
  at: string;
  contextClass: ContextClass;
  dispositionId: string;
  signal: string;
  delta: number;
  adjustment: number;
  effective: number;
}

export interface LearningHistoryResult {
  /** The persona's weights (absent: 1) and bounds the effective weights are read with. */
  baseline: Record<string, number>;
  bounds: [number, number];
  engagement: LearningEngagement[];
  /** Oldest first, at most the newest 2,000 of the period. */
  steps: LearningHistoryStep[];
}
