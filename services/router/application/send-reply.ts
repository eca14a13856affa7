import { Injectable } from '@nestjs/common';
import type { RouterDecision } from '@dirigent/contracts';
import { Clock } from '@dirigent/service-kit';
import type { Disposition } from '@dirigent/router-domain';
import { JudgeTurns } from '../learning/application/judge-turns';
import { ChannelActivity } from './channel-activity';
import { DeliverBeats, type Dispatched } from './deliver-beats';
import { RouterOutbox } from './clients';
import { BurstStore, InboundStore } from './stores';
import type { Planned, TurnRequest } from './turn-record';

/**
 * Sends what a decision planned — the reaction, the beats (a burst paced by its own
 * deliveries), the completion of a granted turn with what was sent — and afterwards closes
 * the burst's durable plan, settles the human message that interrupted it and arms the
 * room's judgement of the turn (learning).
 */
@Injectable()
export class SendReply {
  constructor(
    private readonly outbox: RouterOutbox,
    private readonly activity: ChannelActivity,
    private readonly beats: DeliverBeats,
    private readonly bursts: BurstStore,
    private readonly inbox: InboundStore,
    private readonly clock: Clock,
    private readonly judge: JudgeTurns,
  ) {}

  async send(
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

  /** Ends the burst's durable plan (interrupted, done or stopped) and settles its interrupter. */
  async close(decision: RouterDecision, sent: Dispatched): Promise<void> {
    const at = () => new Date(this.clock.now());
    if (sent.interrupter) {
      if (sent.durable) await this.bursts.end(decision.decisionId, 'interrupted', at());
      await this.inbox.settle(sent.interrupter.messageId, at());
    } else if (sent.durable) {
      const done = sent.atBeat >= decision.beats.length && !decision.undelivered;
      await this.bursts.end(decision.decisionId, done ? 'done' : 'stopped', at());
    }
    await this.judge.arm(decision, sent.sentIds);
  }
}
