import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RouterDecision, RouterUndelivered } from '@dirigent/contracts';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  MAX_BOT_RUN,
  reactionFor,
  seededRandom,
  type AgentPersona,
  type Voice,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { ChannelActivity, type SeenMessage } from './channel-activity';
import { HoldBack } from './hold-back';
import { PersonaLearning } from '../learning/application/persona-learning';
import { RouterOutbox } from './clients';
import { BurstStore, DecisionLog } from './stores';

export interface Dispatched {
  sentIds: string[];
  /** A human message claimed while a burst was running. */
  interrupter?: SeenMessage;
  atBeat: number;
  /** Its progress is kept in `router_bursts` (ended by the caller). */
  durable?: boolean;
}

export interface DispatchOptions {
  agent: AgentPersona;
  mentioned: boolean;
  /** The chosen disposition's shape and voice (a held-back mention's reaction). */
  burst: boolean;
  voice: Voice;
  dispositionId: string;
  /** Kept in `router_bursts` (not under a grant: the coordinator owns that floor). */
  durable: boolean;
  /** A burst resumed after a restart: beats already sent and the ids seen delivered. */
  from?: { sent: number; sentIds: string[] };
}

/**
 * Sends a decision's beats in order, each after the previous one's own message.created,
 * within the channel's bound on bot messages. A burst's progress is durable
 * (`BurstStore`): a restart mid-way sends the beats still due, or judges the human
 * message that claimed it. A beat not seen delivered stops the burst visibly.
 */
@Injectable()
export class DeliverBeats {
  private readonly log = new Logger('router:beats');

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly decisions: DecisionLog,
    private readonly outbox: RouterOutbox,
    private readonly activity: ChannelActivity,
    private readonly clock: Clock,
    private readonly learning: PersonaLearning,
    private readonly holdBacks: HoldBack,
    private readonly bursts: BurstStore,
  ) {}

  /** Whether the decision's delivery is kept in `router_bursts`. */
  tracks(decision: RouterDecision, o: Pick<DispatchOptions, 'burst' | 'durable'>): boolean {
    return o.burst && o.durable && decision.beats.length > 1;
  }

  async dispatch(decision: RouterDecision, o: DispatchOptions): Promise<Dispatched> {
    const { guildId, channelId, beats, decisionId } = decision;
    const durable = this.tracks(decision, o);
    const out: Dispatched = {
      sentIds: [...(o.from?.sentIds ?? [])],
      atBeat: o.from?.sent ?? 0,
      ...(durable ? { durable } : {}),
    };
    if (out.atBeat >= beats.length) return out;
    // Taken before any await: a human message from now on is this burst's interruption.
    const burst = o.burst ? this.activity.beginBurst(guildId, channelId, decisionId) : undefined;
    // Resumed: the echoes of beats the dead process sent are this agent's own messages.
    for (const b of beats.slice(0, out.atBeat))
      this.activity.sentBefore(guildId, channelId, b.text);
    const at = () => new Date(this.clock.now());
    try {
      if (durable && !o.from) {
        const { agentId } = decision;
        await this.bursts.begin(
          { decisionId, guildId, channelId, agentId, dispositionId: o.dispositionId },
          at(),
        );
      }
      for (let i = out.atBeat; i < beats.length; i++) {
        if (i > 0) {
          const interrupter = burst?.interrupted();
          if (interrupter) return { ...out, interrupter };
        }
        // The room as it is at post time (another agent, the orchestrator among them, may
        // have spoken since the decision): never more than MAX_BOT_RUN bot messages without
        // a human one, a mention included (it is answered with a reaction instead).
        const waitedMs = this.config.DIRIGENT_ROUTER_BEAT_TIMEOUT_MS;
        const wait = this.activity.claim(guildId, channelId, beats[i].text, MAX_BOT_RUN, waitedMs);
        if (!wait) {
          await this.holdBack(decision, i, o.mentioned && i === 0 ? o.voice : undefined);
          break;
        }
        if (i > 0) await this.outbox.typing(guildId, channelId);
        // The same id on a resumed burst: a beat published before a SIGKILL is not sent twice.
        await this.outbox.sendMessage(
          guildId,
          channelId,
          beats[i].text,
          o.agent.id,
          `beat-${decisionId}-${i}`,
        );
        out.atBeat = i + 1;
        // Sent (published): a restart from here goes on at the next beat.
        if (durable) await this.bursts.progress(decisionId, out.atBeat, out.sentIds, at());
        const id = await Promise.race([
          wait.delivered,
          new Promise<null>((res) => setTimeout(() => res(null), waitedMs).unref()),
        ]);
        if (id === null) {
          wait.cancel();
          await this.stopBurst(decision, { beat: i, withheld: beats.length - i - 1, waitedMs });
          break;
        }
        out.sentIds.push(id);
        if (durable) await this.bursts.progress(decisionId, out.atBeat, out.sentIds, at());
        await this.learning
          .delivered({
            messageId: id,
            agentId: o.agent.id,
            dispositionId: decision.chosen,
            ...(decision.inputs?.contextClass
              ? { contextClass: decision.inputs.contextClass }
              : {}),
            decisionId,
            guildId,
            channelId,
            content: beats[i].text,
          })
          .catch((e) => this.log.warn({ err: (e as Error).message }, 'message origin not kept'));
      }
      this.activity.markBotTurn(guildId, channelId, this.clock.now());
      // A human message during the last beat withheld nothing: it is routed as usual.
      const late = burst?.interrupted();
      return late ? { ...out, interrupter: late } : out;
    } finally {
      burst?.end();
    }
  }

  /**
   * The bots' run reached its bound before beat `at`: the decision keeps the beats sent and
   * a mention that got no message yet (`voice` given) is answered with a reaction.
   */
  private async holdBack(decision: RouterDecision, at: number, voice?: Voice): Promise<void> {
    const { decisionId, guildId, channelId, agentId, inboundMessageId } = decision;
    const withheld = decision.beats.length - at;
    decision.beats = decision.beats.slice(0, at);
    const reaction =
      voice && inboundMessageId && !decision.reaction
        ? reactionFor(voice, seededRandom(decision.seed, 'reaction')())
        : undefined;
    if (reaction) decision.reaction = reaction;
    await this.decisions.update(decisionId, {
      beats: decision.beats,
      ...(reaction ? { reaction } : {}),
    });
    await this.holdBacks.run(guildId, channelId, {
      decisionId,
      agentId,
      ...(inboundMessageId ? { inboundMessageId } : {}),
      sent: at,
      withheld,
      ...(reaction ? { reaction } : {}),
    });
  }

  /**
   * A beat not seen delivered: the rest is not sent, and the decision and the
   * `burst-stopped` event say so (with a warning), so no beat goes missing silently.
   */
  async stopBurst(decision: RouterDecision, undelivered: RouterUndelivered) {
    const { guildId, channelId, decisionId, agentId } = decision;
    decision.undelivered = undelivered;
    this.log.warn(
      { decisionId, channelId, ...undelivered },
      'beat not seen delivered: the burst stops here',
    );
    await this.decisions.update(decisionId, { undelivered });
    await this.outbox.burstStopped(guildId, channelId, {
      decisionId,
      agentId,
      reason: 'not-delivered',
      ...undelivered,
    });
  }
}
