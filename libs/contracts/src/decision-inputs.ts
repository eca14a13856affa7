import type { FollowupBias, RouterTrigger, Voice } from './dimensions';

// What a router decision records of its inputs (`RouterDecision.inputs`): the shapes the
// deciders of `@dirigent/router-domain` read, stored with each decision so that
// `router.replay` recomputes it.

/** What a mid-burst interruption does with the beats still withheld. */
export type InterruptionAction = 'abort' | 'fold' | 'continue';

/** What the scorer reads of a message (its text is not kept with the decision). */
export interface MessageFeatures {
  /** Characters. */
  length: number;
  question: boolean;
  debate: boolean;
  /** Asks to remember or calls back ("remember", "last time", …). */
  callback: boolean;
  banter: boolean;
  authorIsBot: boolean;
  /** It names someone else (a mention or a reply) and not this agent. */
  addressedToOther: boolean;
  /**
   * It asks for something a skill does (roll dice, a poll, a thread, a pin, a channel or a
   * role, a restructure): a mention of it must be answered by acting, never by an emoji.
   * Absent in decisions recorded before it existed (read as false).
   */
  asksAction?: boolean;
  /**
   * It asks memory what was said or decided ("do you remember …", "what did we decide …"):
   * the turn must read what the question is about, recent and older. Absent in decisions
   * recorded before it existed (read as false).
   */
  recall?: boolean;
  /**
   * A human asks a question in words: a mention of it must be answered in words, never by
   * an emoji alone. Absent in decisions recorded before it existed (read as false).
   */
  asks?: boolean;
}

/** The channel's activity when the decision is made. */
export interface RoomSignals {
  /** Messages a minute over the last `RATE_WINDOW_MS`. */
  ratePerMin: number;
  /** Distinct human authors within `HUMANS_WINDOW_MS`. */
  humansActive: number;
  /** Bot messages since the last human message of the channel. */
  botRun: number;
}

/** Does memory hold something on the topic: hits of a small search (absent: not asked). */
export interface MemorySignals {
  hits: number;
}

/**
 * Everything a decision's scores read, as stored with it: with its seed and the disposition
 * set named by `dispositionSet`, `routeFromInputs` gives the same candidates and choice,
 * byte for byte.
 */
export interface RouterDecisionInputs {
  trigger: RouterTrigger;
  mentioned: boolean;
  /** The agent's persona constraints the gates read. */
  agent: {
    id: string;
    name: string;
    voices?: Voice[];
    /** The persona's `voices.never` (additive: older decisions have none). */
    neverVoices?: Voice[];
    weights?: Record<string, number>;
  };
  message?: MessageFeatures;
  room?: RoomSignals;
  /** Recent authors and members, sorted (the lenses' filter). */
  presentUserIds: string[];
  memory?: MemorySignals;
  /** Remaining fraction of the guild's daily budget, 0..1; absent when unknown. */
  budgetFraction?: number;
  /** Hour of the day, 0-23, in the community's time zone. */
  hour: number;
  temperature: number;
  bias?: FollowupBias;
  interruption?: { action: InterruptionAction; parentDispositionId: string };
  /** The cheap classifier's pick (a model call is not replayed; its answer is an input). */
  tieBreak?: string;
  personaVersion?: number;
  /**
   * The room's mood the guild's learned adjustments were read for (`agent.weights` are
   * then the effective weights: baseline + adjustment). Absent on decisions made before.
   */
  contextClass?: 'lull' | 'casual' | 'busy' | 'heated';
  /** `dispositionSetId` of the dispositions the scores read. */
  dispositionSet: string;
  /**
   * The probes that did not answer within the decision's deadline
   * (`DIRIGENT_ROUTER_INPUTS_DEADLINE_MS`), sorted: their inputs above are what was already
   * known of them (the last budget fraction, member list and learned adjustments read; no
   * memory hit count). Absent when every probe answered in time.
   */
  late?: LateInput[];
}

/** An input a decision went without a fresh answer for. */
export type LateInput = 'budget' | 'learned' | 'members' | 'memory';

/** The lens differs from the disposition's own. */
export interface LensSwap {
  from: string;
  to: string;
  /** `room`: a group is present; `off-axis`: the seeded swap for variety. */
  reason: 'room' | 'off-axis';
}
