import type {
  DispositionUpsertRequest,
  MessageCreated,
  RouterDecision,
  RouterTrigger,
} from '@dirigent/contracts';
import type { Disposition } from '@dirigent/router-domain';

/** The core's stores (Postgres): dispositions, decisions, the inbox, bursts, follow-ups. */

/** The global persona set (Postgres), read often, edited rarely. */
export abstract class DispositionStore {
  abstract list(): Promise<Disposition[]>;
  /**
   * Keeps the set the scores of a decision read, under its content address
   * (`dispositionSetId`), once; `snapshot` gives it back for a replay.
   */
  abstract remember(setId: string, dispositions: readonly Disposition[]): Promise<void>;
  abstract snapshot(setId: string): Promise<Disposition[] | null>;
  abstract upsert(patch: DispositionUpsertRequest): Promise<Disposition>;
  abstract remove(id: string): Promise<boolean>;
}

export interface SubagentRun {
  persona: string;
  lens: string;
  status: 'success' | 'error' | 'timeout' | 'empty';
  durationMs: number;
  model?: string;
  costUsd: number;
  output: string;
}

export interface DecisionFilter {
  guildId: string;
  channelId?: string;
  /** Only this agent's decisions (before the limit is applied). */
  agentId?: string;
  dispositionId?: string;
  trigger?: RouterTrigger;
  limit: number;
}

/** `disposition_decisions` + `subagent_runs`. */
export abstract class DecisionLog {
  abstract save(decision: RouterDecision, runs: SubagentRun[]): Promise<void>;
  /** Records what happened after the decision (beats sent, interruption, follow-up). */
  abstract update(
    decisionId: string,
    patch: Partial<
      Pick<RouterDecision, 'interrupted' | 'followup' | 'beats' | 'undelivered' | 'reaction'>
    >,
  ): Promise<void>;
  abstract get(decisionId: string): Promise<RouterDecision | null>;
  /** Whether the agent decided on the message (a resumed message's turn ran before a restart). */
  abstract decidedOn(inboundMessageId: string, agentId: string): Promise<boolean>;
  /** The decision a follow-up's turn made, if it made one. */
  abstract ofFollowup(followupId: string): Promise<RouterDecision | null>;
  abstract list(filter: DecisionFilter): Promise<RouterDecision[]>;
}

/** What the inbox knew of a message when it was recorded. */
export type InboundState = 'new' | 'open' | 'settled';

export interface OpenInbound {
  message: MessageCreated;
  eventId?: string;
  /** The burst (its decision id) the message interrupted, when a running burst claimed it. */
  claimedBy?: string;
}

/**
 * `router_inbound`: the router's durable inbox. A message is recorded before its event is
 * acknowledged and settled once every agent's turn on it has run; what is still open after a
 * restart is resumed. The message id makes a redelivery a no-op once it has settled.
 */
export abstract class InboundStore {
  /** `claimedBy`: the running burst that takes the message as its interruption. */
  abstract record(
    m: MessageCreated,
    eventId: string | undefined,
    at: Date,
    claimedBy?: string,
  ): Promise<InboundState>;
  abstract settle(messageId: string, at: Date): Promise<void>;
  /** A message the inbox recorded (open or settled). */
  abstract message(messageId: string): Promise<MessageCreated | null>;
  /** Open messages, oldest first. */
  abstract open(limit: number): Promise<OpenInbound[]>;
}

/** A burst's progress: beats of its decision sent so far and the ids seen delivered. */
export interface BurstRecord {
  decisionId: string;
  guildId: string;
  channelId: string;
  agentId: string;
  dispositionId: string;
  status: 'running' | 'done' | 'interrupted' | 'stopped';
  /** Beats published (the next one to send is `beats[sent]`). */
  sent: number;
  sentIds: string[];
}

/**
 * `router_bursts`: a multi-beat delivery's plan kept durable (its beats are the decision's),
 * so a router restarted mid-burst sends the beats still due or judges the human message that
 * interrupted it (`router_inbound.claimed_by`), as the running process would have.
 */
export abstract class BurstStore {
  /** Records a burst about to send its first beat (again: a no-op). */
  abstract begin(b: Omit<BurstRecord, 'status' | 'sent' | 'sentIds'>, at: Date): Promise<void>;
  abstract progress(decisionId: string, sent: number, sentIds: string[], at: Date): Promise<void>;
  abstract end(
    decisionId: string,
    status: 'done' | 'interrupted' | 'stopped',
    at: Date,
  ): Promise<void>;
  /** Bursts still running (a restart found them mid-way), oldest first. */
  abstract running(limit: number): Promise<BurstRecord[]>;
}

export interface FollowupRecord {
  followupId: string;
  parentDecisionId: string;
  guildId: string;
  channelId: string;
  agentId: string;
  bias: string;
  dueAt: Date;
  status: 'scheduled' | 'fired' | 'aborted';
  reason?: string;
  botMessageIds: string[];
  createdAt: Date;
}

/** `self_followup_schedules`: a follow-up settles once (fired or aborted). */
export abstract class FollowupStore {
  abstract create(f: FollowupRecord): Promise<void>;
  abstract get(followupId: string): Promise<FollowupRecord | null>;
  /** Follow-ups still scheduled (their timers are armed again at start). */
  abstract scheduled(): Promise<FollowupRecord[]>;
  /** The bot messages of the turn that scheduled it, once they were sent. */
  abstract setBotMessages(followupId: string, ids: string[]): Promise<void>;
  /** Moves a scheduled follow-up to its final status; false when it had already settled. */
  abstract settle(
    followupId: string,
    status: 'fired' | 'aborted',
    reason?: string,
    firedDecisionId?: string,
  ): Promise<boolean>;
}
