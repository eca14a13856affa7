import type {
  ContextClass,
  LearningAdjustedEvent,
  LearningEngagement,
  PersonaCause,
  PersonaSignalView,
} from '@dirigent/contracts';
import type { MemberSignalState, PersonaContent } from '@dirigent/router-domain';

/** The persona learning loop's store (Postgres). */

/** A stored persona version. */
export interface PersonaRecord {
  agentId: string;
  version: number;
  content: PersonaContent;
  cause: PersonaCause;
  causeId?: string;
  at: Date;
}

/** What a write computes from the active version (null: nothing to write). */
export type PersonaWrite = {
  content: PersonaContent;
  cause: PersonaCause;
  causeId?: string;
} | null;

/** A built-in agent's delivered message and the disposition that produced it. */
export interface PersonaMessage {
  messageId: string;
  agentId: string;
  dispositionId: string;
  decisionId: string;
  guildId: string;
  channelId: string;
  /** The room's mood its decision was made in (absent for messages from before). */
  contextClass?: ContextClass;
  /** Its text (absent for messages from before): what a later message may quote. */
  content?: string;
  at: Date;
}

/**
 * `persona_versions`, `persona_signals`, `persona_messages`. Every write of an agent's
 * persona holds that agent's lock for its transaction, so versions never race.
 */
export abstract class PersonaStore {
  /** Version 1 from the YAML when the agent has none yet; false when it had one. */
  abstract seed(agentId: string, content: PersonaContent, at: Date): Promise<boolean>;
  abstract active(agentId: string): Promise<PersonaRecord | null>;
  abstract version(agentId: string, version: number): Promise<PersonaRecord | null>;
  /** Newest first. */
  abstract versions(agentId: string, limit: number): Promise<PersonaRecord[]>;
  /** The next version from the active one (locked); null when there is none or `next` declines. */
  abstract write(
    agentId: string,
    next: (active: PersonaRecord) => PersonaWrite,
    at: Date,
  ): Promise<{ previous: PersonaRecord; written: PersonaRecord } | null>;
  abstract recordMessage(m: PersonaMessage): Promise<void>;
  abstract message(messageId: string): Promise<PersonaMessage | null>;
  /** The agents' messages in a channel since `since` that kept their text, newest first. */
  abstract recentMessages(
    guildId: string,
    channelId: string,
    since: Date,
    limit: number,
  ): Promise<PersonaMessage[]>;
  /**
   * Applies a learning signal once per (message, signal): `next` computes the new version
   * from the locked active one. `applied: false` when this signal was already counted.
   */
  abstract learn(
    s: {
      messageId: string;
      signal: string;
      agentId: string;
      dispositionId: string;
      polarity: string;
    },
    next: (active: PersonaRecord) => { from: number; to: number; write: PersonaWrite },
    at: Date,
  ): Promise<
    /** Already counted: `version` is the one it wrote, if it moved the weight. */
    | { applied: false; version?: number }
    | { applied: true; from: number; to: number; previous: PersonaRecord; written?: PersonaRecord }
  >;
  /** Newest first. */
  abstract signals(agentId: string, limit: number): Promise<PersonaSignalView[]>;
}

/** A member's one signal on an agent's message (`learning_signals`). */
export type MemberSignal = MemberSignalState;

/** What a signal does, computed from the locked state: the member's new row and the step. */
export type SignalDecision = {
  row: MemberSignal;
  /** The adjustment after the step, and the step (0: nothing moved). */
  adjustment: number;
  delta: number;
} | null;

/** The key of a signal: the message's origin and the member. */
export interface SignalKey {
  guildId: string;
  agentId: string;
  contextClass: ContextClass;
  dispositionId: string;
  messageId: string;
  userId: string;
}

/**
 * `learning_adjustments` and `learning_signals`. A signal runs in one transaction holding
 * the guild's and agent's lock, so a member's row, their daily count and the adjustment
 * move together and a redelivery finds what it already did.
 */
export abstract class LearningStore {
  /** The stored adjustments of a guild's agent (not decayed), with when each last moved. */
  abstract adjustments(
    guildId: string,
    agentId: string,
    contextClass?: ContextClass,
  ): Promise<{ contextClass: ContextClass; dispositionId: string; adjustment: number; at: Date }[]>;
  abstract signal(
    key: SignalKey,
    at: Date,
    decide: (s: {
      current: MemberSignal | null;
      /** The member's signals in this guild today (withdrawn ones included). */
      today: number;
      adjustment: number;
      adjustedAt: Date | null;
    }) => SignalDecision,
  ): Promise<SignalDecision>;
  /** The members' signals kept in the guild for the agent (withdrawn and frozen ones too). */
  abstract signalCount(guildId: string, agentId: string): Promise<number>;
  /** Drops the guild's adjustments of the agent; the number dropped. */
  abstract reset(guildId: string, agentId: string): Promise<number>;
}

/** What the engagement view reads of an agent's turns in a guild (Postgres). */
export abstract class EngagementStore {
  /**
   * Per context class and disposition since `since`: turns that posted and how many were
   * engaged with, ignored or taken badly, and the standing signals by kind.
   */
  abstract engagement(guildId: string, agentId: string, since: Date): Promise<LearningEngagement[]>;
}

/** A guild's `learning.adjusted` events as the router's event stream keeps them. */
export abstract class LearningSteps {
  /** The agent's steps in the guild since `since`, oldest first, at most the newest `limit`. */
  abstract since(
    guildId: string,
    agentId: string,
    since: Date,
    limit: number,
  ): Promise<LearningAdjustedEvent[]>;
}
