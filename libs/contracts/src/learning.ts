import { ArrayMaxSize, IsArray, IsInt, IsString, IsNotEmpty, Min } from 'class-validator';
import { AgentId, Snowflake, Snowflakes } from './rules';
import { createValidated } from './validation';

// Learning per community: `dirigent.router.evt.<g>.learning.adjusted` and
// `dirigent.admin.learning.*` (docs/architecture.md, "Learning per community").

/** The room's moods a guild's learned adjustments are kept by. */
export const CONTEXT_CLASSES = ['lull', 'casual', 'busy', 'heated'] as const;
export type ContextClass = (typeof CONTEXT_CLASSES)[number];

/**
 * What a member (or the room) said to an agent's turn, as `learning.adjusted`'s
 * `cause.signal` names it: a member's reaction, engaged reply, quote or reference back, or
 * rebuke; the room ignoring a line (`ignored`), or a silent or react-only turn judged after
 * the window (`silent-ok`: the room went on without asking for the agent; `silent-missed`:
 * someone asked for it).
 */
export const SIGNAL_KINDS = [
  'reaction',
  'reply',
  'quote',
  'rebuke',
  'ignored',
  'silent-ok',
  'silent-missed',
] as const;
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** The signals the room gives by how it goes on after a turn (no member's own act). */
export const ROOM_SIGNAL_KINDS = ['ignored', 'silent-ok', 'silent-missed'] as const;
export type RoomSignalKind = (typeof ROOM_SIGNAL_KINDS)[number];

/** Every `cause.signal`: the signal kinds, and `withdrawn` (a removed reaction's step undone). */
export const LEARNING_SIGNALS = [...SIGNAL_KINDS, 'withdrawn'] as const;
export type LearningSignal = (typeof LEARNING_SIGNALS)[number];

export const LearningEventTypes = {
  adjusted: 'learning.adjusted',
  /** The router's timer judging a turn once its window closed (internal). */
  judgeDue: 'router.learning-judge-due',
} as const;

/** A step of a guild's learning: which adjustment moved, by how much, to what. */
export interface LearningStepOf<At> {
  guildId: string;
  agentId: string;
  contextClass: ContextClass;
  dispositionId: string;
  /** What this step moved the adjustment by (negative for a withdrawal of a positive step). */
  delta: number;
  /** The adjustment after the step. */
  adjustment: number;
  /** When (decay runs from it): ISO on the event, epoch ms in the pure core. */
  at: At;
}

/** One step of a guild's learning and its cause (`userId` absent for the room's judgements). */
export interface LearningAdjustedEvent extends LearningStepOf<string> {
  cause: { userId?: string; messageId: string; signal: LearningSignal };
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

/**
 * The timer command judging an agent's turn once its window closed (internal,
 * `…timer.fired.router.learning-judge`): the decision, when it was made, and the messages
 * it sent (none: a silent or react-only turn).
 */
export class LearningJudgeDue {
  @IsString() @IsNotEmpty() decisionId: string;
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  /** Epoch ms the window opened (the decision's time). */
  @IsInt() @Min(0) at: number;
  @IsArray() @ArrayMaxSize(50) @Snowflakes() sentIds: string[];
  static create(input: unknown) {
    return createValidated(LearningJudgeDue, input);
  }
}
