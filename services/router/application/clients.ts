import type {
  PersonaChangedEvent,
  PersonaWeightsAdjustedEvent,
  LearningAdjustedEvent,
  RouterBurstStoppedEvent,
  RouterHeldBackEvent,
  RouterDecision,
  RouterFollowupEvent,
} from '@dirigent/contracts';
import type { ChatPort } from '@dirigent/orchestrator';

/**
 * The router's clients of other services (the model gateway, memory, the coordinator, the
 * ingest) and its outbox: shared by every area of the router, which imports them from here.
 */

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
   * Hits of a small search on the topic (`k` at most) that `channelId`'s audience may see,
   * within `timeoutMs`; undefined when memory does not answer in time.
   */
  abstract hits(
    guildId: string,
    channelId: string,
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
  /** One step of a guild's learning (`learning.adjusted`). */
  abstract learningAdjusted(e: LearningAdjustedEvent): Promise<void>;
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
  /** Reactions added since (removed ones too: someone reacted). */
  reactions: { messageId: string; userId: string; userIsBot: boolean }[];
}

/**
 * A channel's history read from the durable Discord event stream, not from process
 * memory: what a plan made before a restart reads when it comes due (a follow-up's abort
 * rules, a speculative turn's predicates), including what arrived while the router was down.
 */
export abstract class ChannelHistory {
  abstract since(guildId: string, channelId: string, from: number): Promise<ChannelEvents>;
  /** Only the messages since `from` (deleted ones left out): no typing, no reactions read. */
  abstract messagesSince(
    guildId: string,
    channelId: string,
    from: number,
  ): Promise<HistoryMessage[]>;
  /**
   * Every channel's messages since `from` (deleted ones left out), by channel id, in one
   * read; undefined, and nothing read, when the streams hold more than `max` events of them.
   */
  abstract recentMessages(
    from: number,
    max: number,
  ): Promise<Map<string, HistoryMessage[]> | undefined>;
  /** When the router's agents spoke or reacted in the channel since `from` (their decisions). */
  abstract botTurnsSince(guildId: string, channelId: string, from: number): Promise<number[]>;
  /** The channel's newest message in the stream (id, and when it was made), if any. */
  abstract newest(
    guildId: string,
    channelId: string,
  ): Promise<{ messageId: string; at: number } | undefined>;
}
