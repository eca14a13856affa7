import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RouterDecision, RouterTrigger } from '@dirigent/contracts';
import type { Lineage } from '@dirigent/reactor';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  dimensionsOf,
  enforceBannedPhrases,
  isModelFree,
  interruptionAction,
  isMentioned,
  reactionFor,
  rollFollowup,
  route,
  seededRandom,
  shapeBeats,
  SILENT_FALLBACK,
  type AgentPersona,
  type Beat,
  type Candidate,
  type Disposition,
  type FollowupBias,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { ChannelActivity, type SeenMessage } from './channel-activity';
import { ComposeReply, saysNothing, type Composed } from './compose-reply';
import { Clock, DecisionLog, DispositionStore, ModelGateway, RouterOutbox } from './ports';
import { ScheduleFollowup } from './schedule-followup';

export interface TurnRequest {
  guildId: string;
  channelId: string;
  agent: AgentPersona;
  trigger: RouterTrigger;
  inbound?: SeenMessage;
  mentioned: boolean;
  seed: string;
  bias?: FollowupBias;
  parentDecisionId?: string;
  followupId?: string;
  /** A coordinator grant: the turn is completed (empty when silent). */
  grant?: { turnId: string };
  /** An interruption: the parent's disposition, beats already sent and those withheld. */
  interruption?: { parentDispositionId: string; atBeat: number; withheld: string[] };
  previous?: string;
  /** Why the turn runs (the reactor job, the event or timer, the run that scheduled it). */
  lineage?: Lineage;
}

interface Dispatched {
  sentIds: string[];
  /** A human message claimed while a burst was running. */
  interrupter?: SeenMessage;
  atBeat: number;
}

/**
 * One turn of a built-in agent: route (seeded), research and synthesize when the shape
 * speaks, persist and publish the decision, then dispatch its shape (a reaction, one
 * message, or a burst paced by its own deliveries), complete a granted turn, roll the
 * follow-up, and route a mid-burst interruption again.
 */
@Injectable()
export class ExecuteTurn {
  private readonly log = new Logger('router:turn');

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly dispositions: DispositionStore,
    private readonly models: ModelGateway,
    private readonly compose: ComposeReply,
    private readonly decisions: DecisionLog,
    private readonly outbox: RouterOutbox,
    private readonly activity: ChannelActivity,
    private readonly followups: ScheduleFollowup,
    private readonly clock: Clock,
  ) {}

  async run(r: TurnRequest): Promise<RouterDecision> {
    const started = this.clock.now();
    const all = await this.dispositions.list();
    const budgetFraction = await this.models.budgetFraction(r.guildId).catch(() => undefined);
    const routed = route(all, {
      trigger: r.trigger,
      agent: r.agent,
      content: r.inbound?.content,
      authorIsBot: r.inbound?.authorIsBot,
      mentioned: r.mentioned,
      budgetFraction,
      bias: r.bias,
      seed: r.seed,
      temperature: this.config.temperature,
    });
    const classified = await this.tieBreak(r, all, routed.candidates, routed.tight);
    const d = all.find((x) => x.id === (classified?.id ?? routed.chosen)) ?? SILENT_FALLBACK;
    const interrupted = r.interruption && {
      atBeat: r.interruption.atBeat,
      action: interruptionAction({ id: r.interruption.parentDispositionId }, d),
    };
    const { beats, reaction, target, composed } = await this.plan(r, d, interrupted?.action);
    const speaks = beats.length > 0 || reaction !== undefined;
    const plan =
      speaks && this.config.file.followups.enabled
        ? rollFollowup(d.selfFollowupHint, {
            seed: r.seed,
            now: this.clock.now(),
            trigger: r.trigger,
          })
        : null;
    const followupId = plan ? randomUUID() : undefined;
    const decision: RouterDecision = {
      decisionId: randomUUID(),
      guildId: r.guildId,
      channelId: r.channelId,
      agentId: r.agent.id,
      trigger: r.trigger,
      ...(r.inbound ? { inboundMessageId: r.inbound.messageId } : {}),
      ...(r.parentDecisionId ? { parentDecisionId: r.parentDecisionId } : {}),
      ...(r.followupId ? { followupId: r.followupId } : {}),
      candidates: routed.candidates,
      chosen: d.id,
      seed: r.seed,
      dimensions: dimensionsOf(d),
      subagents: composed?.runs.map((x) => x.persona) ?? [],
      beats,
      ...(reaction ? { reaction } : {}),
      ...(plan && followupId
        ? { followup: { followupId, bias: plan.bias, dueAt: new Date(plan.dueAt).toISOString() } }
        : {}),
      ...(interrupted ? { interrupted } : {}),
      ...(r.lineage ? { lineage: r.lineage } : {}),
      latencyMs: Math.round(this.clock.now() - started),
      costUsd: (composed?.costUsd ?? 0) + (classified?.costUsd ?? 0),
      models: [
        ...new Set([...(classified ? [classified.model] : []), ...(composed?.models ?? [])]),
      ],
      at: new Date(this.clock.now()).toISOString(),
    };
    await this.decisions.save(decision, composed?.runs ?? []);
    await this.outbox.decision(decision);
    this.log.log(
      {
        decisionId: decision.decisionId,
        channelId: r.channelId,
        trigger: r.trigger,
        chosen: d.id,
        seed: r.seed,
      },
      'decided',
    );

    if (reaction && target) {
      await this.outbox.addReaction(
        r.guildId,
        r.channelId,
        target,
        reaction,
        `react-${decision.decisionId}`,
      );
      this.activity.markBotTurn(r.guildId, r.channelId, this.clock.now());
    }
    const sent = await this.dispatch(decision, d, r.agent);
    if (r.grant) {
      const text = beats
        .slice(0, sent.atBeat)
        .map((b) => b.text)
        .join('\n\n');
      await this.outbox.completeTurn(r.guildId, r.channelId, r.agent.id, r.grant.turnId, text);
    }
    if (plan && decision.followup) {
      await this.followups.run(decision, decision.followup, sent.sentIds);
    }
    // Under a grant the floor is the coordinator's: the withheld beats are dropped and the
    // human message takes its course there.
    if (sent.interrupter && !r.grant) await this.reroute(r, decision, d, sent);
    return decision;
  }

  /**
   * The optional cheap tie-break: when the top two candidates both speak and score within
   * 10%, purpose `router-classify` picks one of them; anything else keeps the sampled choice.
   */
  private async tieBreak(
    r: TurnRequest,
    all: Disposition[],
    candidates: Candidate[],
    tight: boolean,
  ) {
    if (!this.config.DIRIGENT_ROUTER_TIEBREAK || !tight || !r.inbound) return undefined;
    const top = [...candidates]
      .sort((a, b) => b.score - a.score)
      .slice(0, 2)
      .map((c) => all.find((d) => d.id === c.dispositionId)!);
    if (top.some((d) => !d || isModelFree(d))) return undefined;
    try {
      const answer = await this.models.chat(
        r.guildId,
        'router-classify',
        [
          {
            role: 'system',
            content:
              'Pick how a witty group-chat member should answer. Reply with one option id only.',
          },
          {
            role: 'user',
            content: `Message: ${r.inbound.content}\nOptions:\n${top
              .map((d) => `- ${d.id}: ${d.voice}, ${d.outputShape}, ${d.reasoningDepth} reasoning`)
              .join('\n')}`,
          },
        ],
        this.config.DIRIGENT_ROUTER_QUERY_TIMEOUT_MS,
        16,
      );
      const picked = top.find((d) => answer.text.includes(d.id));
      return picked && { id: picked.id, model: answer.model, costUsd: answer.costUsd };
    } catch {
      return undefined;
    }
  }

  private async plan(r: TurnRequest, d: Disposition, action?: 'abort' | 'fold' | 'continue') {
    const none = {
      beats: [] as Beat[],
      reaction: undefined,
      target: undefined,
      composed: undefined,
    };
    if (d.outputShape === 'silent') return none;
    if (d.outputShape === 'react-only') {
      const target = r.inbound?.messageId ?? this.activity.lastHuman(r.channelId)?.messageId;
      if (!target) return none;
      return {
        ...none,
        target,
        reaction: reactionFor(d.voice, seededRandom(r.seed, 'reaction')()),
      };
    }
    if (action === 'continue' && r.interruption) {
      return { ...none, beats: r.interruption.withheld.map((text) => ({ text })) };
    }
    let composed: Composed | undefined;
    try {
      composed = await this.compose.run({
        guildId: r.guildId,
        channelId: r.channelId,
        agent: r.agent,
        disposition: d,
        message: r.inbound,
        bias: r.bias,
        withheld: action === 'fold' ? r.interruption?.withheld : undefined,
        previous: r.previous,
      });
    } catch (e) {
      this.log.warn(
        { err: (e as Error).message, channelId: r.channelId },
        'synthesis failed: nothing to say',
      );
      return none;
    }
    if (saysNothing(composed.text)) return { ...none, composed };
    const clean = enforceBannedPhrases(composed.text, r.agent.bannedPhrases).text;
    return { ...none, beats: shapeBeats(d.outputShape, clean), composed };
  }

  /** Sends the beats in order; each after the previous one's own message.created. */
  private async dispatch(
    decision: RouterDecision,
    d: Disposition,
    agent: AgentPersona,
  ): Promise<Dispatched> {
    const { guildId, channelId, beats } = decision;
    const out: Dispatched = { sentIds: [], atBeat: 0 };
    if (!beats.length) return out;
    const burst =
      d.outputShape === 'burst' ? this.activity.beginBurst(guildId, channelId) : undefined;
    try {
      for (let i = 0; i < beats.length; i++) {
        if (i > 0) {
          const interrupter = burst?.interrupted();
          if (interrupter) return { ...out, interrupter };
          await this.outbox.typing(guildId, channelId);
        }
        const wait = this.activity.expectDelivery(guildId, channelId, beats[i].text);
        await this.outbox.sendMessage(
          guildId,
          channelId,
          beats[i].text,
          agent.id,
          `beat-${decision.decisionId}-${i}`,
        );
        out.atBeat = i + 1;
        const id = await Promise.race([
          wait.delivered,
          new Promise<null>((res) =>
            setTimeout(() => res(null), this.config.DIRIGENT_ROUTER_BEAT_TIMEOUT_MS).unref(),
          ),
        ]);
        if (id === null) {
          wait.cancel();
          if (i < beats.length - 1)
            this.log.warn({ channelId, beat: i }, 'beat not seen delivered: burst stops');
          break;
        }
        out.sentIds.push(id);
      }
      this.activity.markBotTurn(guildId, channelId, this.clock.now());
      // A human message during the last beat withheld nothing: it is routed as usual.
      const late = burst?.interrupted();
      return late ? { ...out, interrupter: late } : out;
    } finally {
      burst?.end();
    }
  }

  private async reroute(r: TurnRequest, parent: RouterDecision, d: Disposition, sent: Dispatched) {
    const m = sent.interrupter!;
    const withheld = parent.beats.slice(sent.atBeat).map((b) => b.text);
    const child = await this.run({
      guildId: r.guildId,
      channelId: r.channelId,
      agent: r.agent,
      trigger: withheld.length ? 'interruption' : 'reactive',
      inbound: m,
      mentioned: isMentioned(r.agent, m),
      seed: `${m.messageId}:${r.agent.id}`,
      lineage: {
        job: withheld.length ? 'interruption' : 'reactive-turn',
        trigger: 'event',
        causeId: m.eventId ?? m.messageId,
        parentId: parent.decisionId,
      },
      ...(withheld.length
        ? {
            parentDecisionId: parent.decisionId,
            interruption: { parentDispositionId: d.id, atBeat: sent.atBeat, withheld },
          }
        : {}),
    });
    if (child.interrupted)
      await this.decisions.update(parent.decisionId, { interrupted: child.interrupted });
  }
}
