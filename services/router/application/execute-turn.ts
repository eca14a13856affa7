import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RouterDecision } from '@dirigent/contracts';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  asksMemory,
  beatAllowance,
  classifyInterruption,
  isMentioned,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../config';
import { decisionsMade } from '../adapters/metrics';
import { ChooseDisposition } from './choose-disposition';
import type { Composed } from './compose-reply';
import type { Dispatched } from './deliver-beats';
import { PlanReply } from './plan-reply';
import { RouterOutbox } from './clients';
import { DecisionLog } from './stores';
import { ScheduleFollowup } from './schedule-followup';
import { SendReply } from './send-reply';
import { decisionRecord, type TurnRequest } from './turn-record';

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
    private readonly clock: Clock,
    private readonly choose: ChooseDisposition,
    private readonly plan: PlanReply,
    private readonly decisions: DecisionLog,
    private readonly outbox: RouterOutbox,
    private readonly followups: ScheduleFollowup,
    private readonly reply: SendReply,
  ) {}

  /** `onDecided` runs once the decision is stored and published, before anything is sent. */
  async run(
    turn: TurnRequest,
    onDecided?: (d: RouterDecision) => Promise<void>,
  ): Promise<RouterDecision> {
    const started = this.clock.now();
    // The active persona version: its gates, weights and the synthesizer's constraints.
    const { r, choice } = await this.choose.run(turn);
    const d = choice.disposition;
    const interrupted = r.interruption && {
      atBeat: r.interruption.atBeat,
      action: r.interruption.action,
    };
    const planned = await this.plan.run(r, d, {
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
    const sent = await this.reply.send(r, decision, d, planned);
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
    if (sent.interrupter && !r.grant) await this.reroute(r, decision, dispositionId, sent);
    await this.reply.close(decision, sent);
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
