import { AgentId, Snowflake } from './rules';
import { createValidated } from './validation';

// Learning per community: `dirigent.router.evt.<g>.learning.adjusted` and
// `dirigent.admin.learning.*` (docs/architecture.md, "Learning per community").

/** The room's moods a guild's learned adjustments are kept by. */
export const CONTEXT_CLASSES = ['lull', 'casual', 'busy', 'heated'] as const;
export type ContextClass = (typeof CONTEXT_CLASSES)[number];

/** What a member (or the room) said to an agent's message. */
export const LEARNING_SIGNALS = [
  'reaction',
  'reply',
  'quote',
  'rebuke',
  'ignored',
  'silent',
  'withdrawn',
] as const;
export type LearningSignal = (typeof LEARNING_SIGNALS)[number];

export const LearningEventTypes = { adjusted: 'learning.adjusted' } as const;

/** One step of a guild's learning and its cause. */
export interface LearningAdjustedEvent {
  guildId: string;
  agentId: string;
  contextClass: ContextClass;
  dispositionId: string;
  /** What this step moved the adjustment by (negative for a withdrawal of a positive step). */
  delta: number;
  /** The adjustment after the step. */
  adjustment: number;
  cause: { userId?: string; messageId: string; signal: LearningSignal };
  /** ISO time of the step (decay runs from it). */
  at: string;
}

/** `dirigent.admin.learning.get`. */
export class LearningGetRequest {
  @Snowflake() guildId: string;
  @AgentId() agentId: string;
  static create(input: unknown) {
    return createValidated(LearningGetRequest, input);
  }
}

export interface LearningGetResult {
  /** Members' signals kept in this guild for the agent (one per member per message). */
  signals: number;
  adjustments: {
    contextClass: ContextClass;
    dispositionId: string;
    adjustment: number;
    effective: number;
  }[];
}

/** `dirigent.admin.learning.reset`: the guild's adjustments of the agent back to 0. */
export class LearningResetRequest {
  @Snowflake() guildId: string;
  @AgentId() agentId: string;
  static create(input: unknown) {
    return createValidated(LearningResetRequest, input);
  }
}
