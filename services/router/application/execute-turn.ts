import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RouterDecision } from '@dirigent/contracts';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  asksMemory,
  beatAllowance,
  classifyInterruption,
  gateReply,
  isMentioned,
  reactionFor,
  routeFromInputs,
  seededRandom,
  shapeBeats,
  SILENT_FALLBACK,
  type Disposition,
  type InterruptionAction,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { ChannelActivity } from './channel-activity';
import { ComposeReply, saysNothing, type Composed } from './compose-reply';
import { DeliverBeats, type Dispatched } from './deliver-beats';
import { Personas } from './personas';
import { BurstStore, DecisionLog, InboundStore, ModelGateway, RouterOutbox } from './ports';
import { ReadTheRoom } from './read-the-room';
import { ScheduleFollowup } from './schedule-followup';
import { tieBreak } from './tie-break';
import { decisionRecord, ms, type Choice, type Planned, type TurnRequest } from './turn-record';
import { decisionsMade } from '../adapters/metrics';

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
    private readonly room: ReadTheRoom,
    private readonly models: ModelGateway,
    private readonly compose: ComposeReply,
    private readonly decisions: DecisionLog,
    private readonly outbox: RouterOutbox,
    private readonly activity: ChannelActivity,
    private readonly followups: ScheduleFollowup,
    private readonly clock: Clock,
    private readonly personas: Personas,
    private readonly beats: DeliverBeats,
    private readonly inbox: InboundStore,
    private readonly bursts: BurstStore,
  ) {}

  /** `onDecided` runs once the decision is stored and published, before anything is sent. */
  async run(
    turn: TurnRequest,
    onDecided?: (d: RouterDecision) => Promise<void>,
  ): Promise<RouterDecision> {
    const started = this.clock.now();
    // The active persona version: its gates, weights and the synthesizer's constraints.
    const r = { ...turn, agent: await this.personas.forTurn(turn.agent) };
    const choice = await this.choose(r);
    const d = choice.disposition;
    const interrupted = r.interruption && {
      atBeat: r.interruption.atBeat,
      action: r.interruption.action,
    };
    const planned = await this.plan(r, d, {
      action: interrupted?.action,
      maxBeats: beatAllowance(choice.inputs.room),
      presentUserIds: choice.inputs.presentUserIds,
      recall: asksMemory(choice.inputs.message),
    });
    const decision = decisionRecord(r, choice, planned, interrupted, started, {
      now: this.clock.now(),
      followupsEnabled: this.config.file.followups.enabled,
    });
    await this.publish(decision, planned.composed);
    await onDecided?.(decision);
    if (decision.followup) await this.followups.run(decision, decision.followup);
    const sent = await this.deliver(r, decision, d, planned);
    await this.delivered(r, decision, d.id, sent);
    return decision;
  }

  /**
   * After the beats (sent in one go, or resumed after a restart): the follow-up learns what
   * was said, a human message that claimed the burst is routed again (under a grant the
   * floor is the coordinator's: the withheld beats are dropped and the message takes its
   * course there), and the burst's durable plan ends.
   */
  async delivered(
    r: TurnRequest,
    decision: RouterDecision,
    dispositionId: string,
    sent: Dispatched,
  ) {
    if (decision.followup) await this.followups.sent(decision, decision.followup, sent.sentIds);
    const at = () => new Date(this.clock.now());
    if (sent.interrupter) {
      if (!r.grant) await this.reroute(r, decision, dispositionId, sent);
      if (sent.durable) await this.bursts.end(decision.decisionId, 'interrupted', at());
      await this.inbox.settle(sent.interrupter.messageId, at());
    } else if (sent.durable) {
      const done = sent.atBeat >= decision.beats.length && !decision.undelivered;
      await this.bursts.end(decision.decisionId, done ? 'done' : 'stopped', at());
    }
  }

  /**
   * Reads the room, routes (seeded) from those inputs, then the optional model tie-break
   * (kept in the inputs, so a replay makes the same choice).
   */
  private async choose(r: TurnRequest): Promise<Choice> {
    const gathering = performance.now();
    const { inputs, dispositions: all } = await this.room.gather({
      ...r,
      ...(r.interruption
        ? {
            interruption: {
              action: r.interruption.action,
              parentDispositionId: r.interruption.parentDispositionId,
            },
          }
        : {}),
    });
    const deciding = performance.now();
    let routed = routeFromInputs(all, inputs, r.seed);
    let decideMs = performance.now() - deciding;
    const classified = await tieBreak(this.models, this.config, r, all, routed);
    if (classified && classified.id !== routed.chosen) {
      inputs.tieBreak = classified.id;
      const again = performance.now();
      routed = routeFromInputs(all, inputs, r.seed);
      decideMs += performance.now() - again;
    }
    const timings = { gatherMs: ms(deciding - gathering), decideMs: ms(decideMs) };
    const chosen = all.find((x) => x.id === routed.chosen) ?? SILENT_FALLBACK;
    // The lens the turn reads through (its own, or swapped: see `lensSwap`).
    const disposition = { ...chosen, contextStrategy: routed.dimensions.contextStrategy };
    return { inputs, routed, disposition, classified, timings };
  }

  /** Persists the decision and publishes it, before any beat is sent. */
  private async publish(decision: RouterDecision, composed?: Composed): Promise<void> {
    await this.decisions.save(decision, composed?.runs ?? []);
    await this.outbox.decision(decision);
    decisionsMade.inc({ disposition: decision.chosen, trigger: decision.trigger });
    this.log.log(
      {
        decisionId: decision.decisionId,
        channelId: decision.channelId,
        trigger: decision.trigger,
        chosen: decision.chosen,
        seed: decision.seed,
      },
      'decided',
    );
  }

  /** The reaction, the beats, and the completion of a granted turn (with what was sent). */
  private async deliver(
    r: TurnRequest,
    decision: RouterDecision,
    d: Disposition,
    { reaction, target }: Planned,
  ): Promise<Dispatched> {
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
    const sent = await this.beats.dispatch(decision, {
      agent: r.agent,
      mentioned: r.mentioned,
      burst: d.outputShape === 'burst',
      voice: d.voice,
      dispositionId: d.id,
      durable: !r.grant,
    });
    if (r.grant) {
      const text = decision.beats
        .slice(0, sent.atBeat)
        .map((b) => b.text)
        .join('\n\n');
      await this.outbox.completeTurn(r.guildId, r.channelId, r.agent.id, r.grant.turnId, text);
    }
    return sent;
  }

  private async plan(
    r: TurnRequest,
    d: Disposition,
    o: {
      action?: InterruptionAction;
      maxBeats: number;
      presentUserIds: string[];
      recall?: boolean;
    },
  ): Promise<Planned> {
    const { action } = o;
    const none: Planned = { beats: [] };
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
    if (action === 'continue' && r.interruption?.parentDispositionId === d.id) {
      const withheld = r.interruption.withheld.join('\n\n');
      return { ...none, beats: shapeBeats('burst', withheld, o.maxBeats) };
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
        presentUserIds: o.presentUserIds,
        recall: o.recall,
        seed: r.seed,
        before: this.before(r),
      });
    } catch (e) {
      this.log.warn(
        { err: (e as Error).message, channelId: r.channelId },
        'synthesis failed: nothing to say',
      );
      return none;
    }
    if (saysNothing(composed.text)) return { ...none, composed };
    const gated = gateReply(composed.text, r.agent);
    if ('suppressed' in gated || saysNothing(gated.text)) {
      this.log.warn(
        {
          channelId: r.channelId,
          agentId: r.agent.id,
          neverDo: 'rule' in gated ? gated.rule : undefined,
        },
        'reply suppressed by the persona',
      );
      return { ...none, composed };
    }
    return { ...none, beats: shapeBeats(d.outputShape, gated.text, o.maxBeats), composed };
  }

  /** The message the channel saw just before the inbound one (what "pin that" means). */
  private before(r: TurnRequest): { messageId: string; content: string } | undefined {
    if (!r.inbound) return undefined;
    const recent = this.activity.get(r.channelId).recent;
    const at = recent.findIndex((m) => m.messageId === r.inbound!.messageId);
    const prior = at > 0 ? recent[at - 1] : at === -1 ? recent[recent.length - 1] : undefined;
    return prior && { messageId: prior.messageId, content: prior.content };
  }

  /**
   * Routes the human message that interrupted `parent` again, judged from that message;
   * the same after a restart (the burst's plan and the claim are durable).
   */
  private async reroute(
    r: TurnRequest,
    parent: RouterDecision,
    dispositionId: string,
    sent: Dispatched,
  ) {
    const m = sent.interrupter!;
    const withheld = parent.beats.slice(sent.atBeat).map((b) => b.text);
    const mentioned = isMentioned(r.agent, m);
    // Judged from the new message: a question to the bot folds, a new topic aborts,
    // agreement or an aside lets the burst go on.
    const action = classifyInterruption({
      content: m.content,
      toBot:
        mentioned ||
        (m.replyToMessageId !== undefined && sent.sentIds.includes(m.replyToMessageId)),
      topicText: [r.inbound?.content ?? '', ...parent.beats.map((b) => b.text)].join('\n\n'),
    });
    const child = await this.run({
      guildId: r.guildId,
      channelId: r.channelId,
      agent: r.agent,
      trigger: withheld.length ? 'interruption' : 'reactive',
      inbound: m,
      mentioned,
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
            interruption: {
              parentDispositionId: dispositionId,
              atBeat: sent.atBeat,
              withheld,
              action,
            },
          }
        : {}),
    });
    if (child.interrupted)
      await this.decisions.update(parent.decisionId, { interrupted: child.interrupted });
  }
}
