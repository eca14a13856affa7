import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import type { MessageCreated, TypingStarted } from '@dirigent/contracts';
import { KeyedQueue } from '@dirigent/messaging';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  gateReply,
  isMentioned,
  MAX_BOT_RUN,
  preflight,
  type AgentPersona,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { OrchestrateInDiscord } from '../orchestrator/orchestrator.module';
import { Agents } from './agents';
import { ChannelActivity, type SeenMessage } from './channel-activity';
import { ExecuteTurn } from './execute-turn';
import { HoldBack } from './hold-back';
import { Personas } from './personas';
import { DecisionLog, InboundStore, TurnCoordination, type OpenInbound } from './ports';
import { RESUME_WITHIN_MS, ResumeBursts } from './resume-bursts';
import { SpeculativeTurns } from './speculative';

/** Open messages resumed at start, at most (older ones stay open: a bound on a restart's work). */
const RESUMED_AT_START = 500;
/** The orchestrator's answer to a mention when the channel's bot run has no place for it. */
const HELD_BACK_REACTION = '👀';
/** Message ids remembered as claimed by this process. */
const REMEMBERED = 5000;

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
 * in the channel's lane (one in-flight reply per channel), from the router's durable inbox
 * (`router_inbound`: recorded before the event is acknowledged, settled after the turns,
 * resumed after a restart, a no-op for a message already settled). In a channel whose turns the
 * coordinator manages, an agent among its speakers waits for its grant instead.
 */
@Injectable()
export class ReactToMessage implements OnApplicationBootstrap {
  private readonly log = new Logger('router:messages');

  /** Messages whose turns this process started (a redelivery or the resume finds them here). */
  private readonly claimed = new Set<string>();

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly agents: Agents,
    private readonly inbox: InboundStore,
    private readonly decisions: DecisionLog,
    private readonly clock: Clock,
    private readonly activity: ChannelActivity,
    private readonly lanes: KeyedQueue,
    private readonly execute: ExecuteTurn,
    private readonly coordination: TurnCoordination,
    private readonly speculative: SpeculativeTurns,
    private readonly personas: Personas,
    private readonly holdBack: HoldBack,
    private readonly bursts: ResumeBursts,
    @Optional() private readonly orchestrator?: OrchestrateInDiscord,
  ) {}

  /**
   * Records a new message in the durable inbox, then starts its turns and returns: the
   * consumer acknowledges the event once the message is recorded (a SIGKILL after that
   * resumes it at the next start) and must keep delivering beats while the lanes run.
   * `eventId` (the envelope id) is the cause in the decisions' lineage.
   */
  async observe(m: MessageCreated, eventId?: string): Promise<void> {
    const seen = { ...seenMessage(m), ...(eventId ? { eventId } : {}) };
    if (this.claimed.has(m.messageId)) return;
    const seenAs = this.activity.observe(seen, this.agents.userIds);
    if (seenAs === 'own') return;
    // Claimed by a running burst, which routes it again and settles it; recorded first with
    // the burst it interrupted, so a SIGKILL before that has it judged the same way at the
    // next start (`ResumeBursts`).
    const burst = seenAs === 'interrupt' ? this.activity.burstOf(m.channelId) : undefined;
    const state = await this.inbox.record(m, eventId, new Date(this.clock.now()), burst);
    if (seenAs === 'interrupt') return this.claim(m.messageId);
    if (state === 'settled') return;
    this.start(m, seen, state === 'open');
  }

  /**
   * At start: the bursts a restart cut short go first in their lanes (`ResumeBursts`: the
   * human message that claimed one is judged as its interruption), then the messages
   * recorded but not settled (within the last ten minutes) run their turns, except those an
   * agent had already decided on.
   */
  async onApplicationBootstrap(): Promise<void> {
    const open = await this.inbox.open(RESUMED_AT_START);
    const seen = (o: OpenInbound) => ({
      ...seenMessage(o.message),
      ...(o.eventId ? { eventId: o.eventId } : {}),
    });
    const bursts = await this.bursts.prepare(open, seen);
    if (open.length) this.log.warn({ messages: open.length }, 'resuming messages left open');
    const now = this.clock.now();
    const resumed: { message: MessageCreated; seen: SeenMessage }[] = [];
    for (const o of open) {
      const { message } = o;
      if (this.claimed.has(message.messageId)) continue;
      if (bursts.taken.has(message.messageId)) {
        this.claim(message.messageId);
        continue;
      }
      // Long gone (the router was down for a while): not answered now, out of context.
      if (now - Date.parse(message.createdAt) > RESUME_WITHIN_MS) {
        await this.inbox.settle(message.messageId, new Date(now));
        continue;
      }
      resumed.push({ message, seen: seen(o) });
    }
    // Seen before a resumed burst runs (so none of them counts as its interruption), queued
    // in the lanes behind it.
    for (const r of resumed) this.activity.observe(r.seen, this.agents.userIds);
    this.bursts.start(bursts.plans);
    for (const r of resumed) this.start(r.message, r.seen, true);
  }

  /** Runs every agent's turn on the message, then settles it in the inbox. */
  private start(m: MessageCreated, seen: SeenMessage, resumed: boolean): void {
    this.claim(m.messageId);
    const failed = (e: unknown) =>
      this.log.error({ err: (e as Error).message, messageId: m.messageId }, 'turn failed');
    const turns = this.agents.all.map((agent) =>
      // An orchestrator's jobs run off the lane, as tasks: the channel keeps its turns.
      (agent.orchestrator
        ? this.orchestrate(agent, m, resumed)
        : this.lanes.run(m.channelId, () => this.decide(agent, m, seen, resumed))
      ).catch(failed),
    );
    void Promise.all(turns)
      .then(() => this.inbox.settle(m.messageId, new Date(this.clock.now())))
      .catch(failed);
  }

  private claim(messageId: string): void {
    this.claimed.add(messageId);
    if (this.claimed.size > REMEMBERED) this.claimed.delete(this.claimed.values().next().value!);
  }

  /**
   * A message was deleted: an orchestration it started stops and answers nothing, and it is
   * no longer "the message before" a request (a notice deleted after it was sent cannot be
   * pinned).
   */
  deleted(m: { channelId: string; messageId: string }): void {
    this.orchestrator?.cancel(m.messageId);
    this.activity.forget(m.channelId, m.messageId);
  }

  typing(t: TypingStarted): void {
    this.activity.typing(t.guildId, t.channelId, t.userId, Date.parse(t.at), this.agents.userIds);
  }

  private async orchestrate(agent: AgentPersona, m: MessageCreated, resumed: boolean) {
    if (!isMentioned(agent, m) || m.authorId === agent.discordUserId || m.authorIsBot) return;
    // A resumed message whose orchestration started before the restart: its tasks were
    // reported failed at start; it is not asked again.
    if (resumed && (await this.decisions.decidedOn(m.messageId, agent.id))) return;
    if (resumed && this.orchestrator && (await this.orchestrator.started(m.messageId))) return;
    if (!this.orchestrator) return;
    // Its answers pass the persona gates and take places in the channel's bot run as the
    // disposition router's do.
    const persona = await this.personas.forTurn(agent);
    const lapseMs = this.config.DIRIGENT_ROUTER_BEAT_TIMEOUT_MS;
    await this.orchestrator.run(agent, m, {
      version: persona.personaVersion,
      gate: (text) => gateReply(text, persona),
      claim: (content) =>
        this.activity.claim(m.guildId, m.channelId, content, MAX_BOT_RUN, lapseMs) !== null,
      heldBack: (decisionId, sent, withheld) =>
        this.holdBack.run(m.guildId, m.channelId, {
          decisionId,
          agentId: agent.id,
          inboundMessageId: m.messageId,
          sent,
          withheld,
          ...(sent === 0 ? { reaction: HELD_BACK_REACTION } : {}),
        }),
    });
  }

  private async decide(
    agent: AgentPersona,
    m: MessageCreated,
    seen: SeenMessage,
    resumed: boolean,
  ): Promise<void> {
    if (resumed && (await this.decisions.decidedOn(m.messageId, agent.id))) {
      // Killed between the decision and the arming: arm again (one timer per agent and
      // channel, so arming twice is harmless).
      if (!m.authorIsBot) await this.speculative.arm(agent, m.guildId, m.channelId, seen.at);
      return;
    }
    const channel = await this.coordination.managed(m.channelId);
    if (channel.managed && channel.speakers.includes(agent.id)) return;
    // A grant already answered it (this turn waited in the lane behind that one).
    if (!resumed && (await this.decisions.decidedOn(m.messageId, agent.id))) return;
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
