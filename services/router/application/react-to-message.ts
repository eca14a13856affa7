import { Injectable, Logger, Optional } from '@nestjs/common';
import type { MessageCreated, TypingStarted } from '@dirigent/contracts';
import { KeyedQueue } from '@dirigent/messaging';
import { isMentioned, preflight, type AgentPersona } from '@dirigent/router-domain';
import { OrchestrateInDiscord } from '../orchestrator/orchestrator.module';
import { Agents } from './agents';
import { ChannelActivity, type SeenMessage } from './channel-activity';
import { ExecuteTurn } from './execute-turn';
import { TurnCoordination } from './ports';
import { SpeculativeTurns } from './speculative';

export function seenMessage(m: MessageCreated): SeenMessage {
  return {
    messageId: m.messageId,
    guildId: m.guildId,
    channelId: m.channelId,
    authorId: m.authorId,
    authorIsBot: m.authorIsBot,
    content: m.content,
    at: Date.parse(m.createdAt),
    ...(m.webhookId ? { webhookId: m.webhookId } : {}),
    ...(m.authorName ? { authorName: m.authorName } : {}),
    ...(m.replyToMessageId ? { replyToMessageId: m.replyToMessageId } : {}),
    ...(m.mentions ? { mentions: m.mentions } : {}),
  };
}

/**
 * A Discord message, for every built-in agent: its own deliveries pace bursts, a human
 * message during a burst interrupts it, and otherwise each agent decides on the message
 * in the channel's lane (one in-flight reply per channel). In a channel whose turns the
 * coordinator manages, an agent among its speakers waits for its grant instead.
 */
@Injectable()
export class ReactToMessage {
  private readonly log = new Logger('router:messages');

  constructor(
    private readonly agents: Agents,
    private readonly activity: ChannelActivity,
    private readonly lanes: KeyedQueue,
    private readonly execute: ExecuteTurn,
    private readonly coordination: TurnCoordination,
    private readonly speculative: SpeculativeTurns,
    @Optional() private readonly orchestrator?: OrchestrateInDiscord,
  ) {}

  /**
   * Returns at once: the lane runs the turns (the consumer must keep delivering beats).
   * `eventId` (the envelope id) is the cause in the decisions' lineage.
   */
  observe(m: MessageCreated, eventId?: string): void {
    const seen = { ...seenMessage(m), ...(eventId ? { eventId } : {}) };
    if (this.activity.observe(seen, this.agents.userIds) !== 'new') return;
    const failed = (e: unknown) =>
      this.log.error({ err: (e as Error).message, messageId: m.messageId }, 'turn failed');
    for (const agent of this.agents.all) {
      // An orchestrator's jobs run off the lane, as tasks: the channel keeps its turns.
      if (agent.orchestrator) this.orchestrate(agent, m).catch(failed);
      else this.lanes.run(m.channelId, () => this.decide(agent, m, seen)).catch(failed);
    }
  }

  /** The asker deleted a message: an orchestration it started stops and answers nothing. */
  deleted(messageId: string): void {
    this.orchestrator?.cancel(messageId);
  }

  typing(t: TypingStarted): void {
    this.activity.typing(t.guildId, t.channelId, t.userId, Date.parse(t.at), this.agents.userIds);
  }

  private async orchestrate(agent: AgentPersona, m: MessageCreated): Promise<void> {
    if (isMentioned(agent, m) && m.authorId !== agent.discordUserId && !m.authorIsBot) {
      await this.orchestrator?.run(agent, m);
    }
  }

  private async decide(agent: AgentPersona, m: MessageCreated, seen: SeenMessage): Promise<void> {
    const channel = await this.coordination.managed(m.channelId);
    if (channel.managed && channel.speakers.includes(agent.id)) return;
    const verdict = preflight(agent, seen, { managedChannel: channel.managed });
    if (!verdict.proceed) return;
    const decision = await this.execute.run({
      guildId: m.guildId,
      channelId: m.channelId,
      agent,
      trigger: 'reactive',
      inbound: seen,
      mentioned: verdict.mentioned,
      seed: `${m.messageId}:${agent.id}`,
      lineage: { job: 'reactive-turn', trigger: 'event', causeId: seen.eventId ?? m.messageId },
    });
    if (!m.authorIsBot)
      await this.speculative.arm(agent, m.guildId, m.channelId, seen.at, decision.decisionId);
  }
}
