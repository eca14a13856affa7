import type {
  DispositionUpsertRequest,
  PersonaCause,
  PersonaChangedEvent,
  PersonaSignalView,
  PersonaWeightsAdjustedEvent,
  MessageCreated,
  RouterBurstStoppedEvent,
  RouterHeldBackEvent,
  RouterDecision,
  RouterFollowupEvent,
  RouterTrigger,
} from '@dirigent/contracts';
import type { ChatPort } from '@dirigent/orchestrator';
import type { Disposition, PersonaContent } from '@dirigent/router-domain';

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

export interface ModelAnswer {
  text: string;
  model: string;
  costUsd: number;
}

/** Models only through the gateway, by purpose. */
export abstract class ModelGateway {
  abstract chat(
    guildId: string,
    purpose: string,
    messages: { role: 'system' | 'user' | 'assistant'; content: string }[],
    timeoutMs: number,
    maxTokens?: number,
  ): Promise<ModelAnswer>;
  /** Remaining fraction of today's budget, or undefined when the gateway does not say. */
  abstract budgetFraction(guildId: string): Promise<number | undefined>;
  /** The same client as the orchestrator library's port (research passes run through it). */
  abstract readonly chatPort: ChatPort;
}

/** Memory's lenses; empty text when memory does not answer. */
export abstract class MemoryLenses {
  /**
   * Hits of a small search on the topic (`k` at most), within `timeoutMs`; undefined when
   * memory does not answer in time.
   */
  abstract hits(
    guildId: string,
    query: string,
    k: number,
    timeoutMs: number,
  ): Promise<number | undefined>;
  abstract context(
    guildId: string,
    channelId: string,
    strategy: string,
    opts: { topic?: string; presentUserIds?: string[]; focusUserId?: string },
  ): Promise<string>;
}

/** Discord commands and the router's own events. */
export abstract class RouterOutbox {
  abstract sendMessage(
    guildId: string,
    channelId: string,
    content: string,
    asAgentId: string,
    id: string,
  ): Promise<void>;
  abstract addReaction(
    guildId: string,
    channelId: string,
    messageId: string,
    emoji: string,
    id: string,
  ): Promise<void>;
  abstract typing(guildId: string, channelId: string): Promise<void>;
  abstract decision(d: RouterDecision): Promise<void>;
  abstract followup(guildId: string, channelId: string, e: RouterFollowupEvent): Promise<void>;
  abstract heldBack(guildId: string, channelId: string, e: RouterHeldBackEvent): Promise<void>;
  abstract burstStopped(
    guildId: string,
    channelId: string,
    e: RouterBurstStoppedEvent,
  ): Promise<void>;
  abstract completeTurn(
    guildId: string,
    channelId: string,
    agentId: string,
    turnId: string,
    text: string,
  ): Promise<void>;
  abstract personaChanged(e: PersonaChangedEvent): Promise<void>;
  abstract personaWeightsAdjusted(e: PersonaWeightsAdjustedEvent): Promise<void>;
}

/** Who may read a channel (the ingest's members query). */
export abstract class ChannelMembers {
  /** The members' user ids, humans first (cached; empty when the ingest does not answer). */
  abstract list(guildId: string, channelId: string): Promise<string[]>;
}

/** What the coordinator says of a channel: is `agentId` one of its managed speakers? */
export abstract class TurnCoordination {
  abstract managed(channelId: string): Promise<{ managed: boolean; speakers: string[] }>;
  /** Registers an agent with its own Discord account as an identity (best effort). */
  abstract register(agent: { id: string; name: string; discordUserId: string }): Promise<boolean>;
}

/** A message of a channel as the durable history holds it. */
export interface HistoryMessage {
  messageId: string;
  authorId: string;
  authorIsBot: boolean;
  content: string;
  webhookId?: string;
  /** Epoch ms. */
  at: number;
  replyToMessageId?: string;
  mentions?: string[];
}

/** What happened in a channel after a moment, oldest first (deleted messages left out). */
export interface ChannelEvents {
  messages: HistoryMessage[];
  typing: { userId: string; at: number }[];
}

/**
 * A channel's history read from the durable Discord event stream, not from process
 * memory: what a plan made before a restart reads when it comes due (a follow-up's abort
 * rules, a speculative turn's predicates), including what arrived while the router was down.
 */
export abstract class ChannelHistory {
  abstract since(guildId: string, channelId: string, from: number): Promise<ChannelEvents>;
  /** When the router's agents spoke or reacted in the channel since `from` (their decisions). */
  abstract botTurnsSince(guildId: string, channelId: string, from: number): Promise<number[]>;
  /** The channel's newest message in the stream (id, and when it was made), if any. */
  abstract newest(
    guildId: string,
    channelId: string,
  ): Promise<{ messageId: string; at: number } | undefined>;
}

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
