import { Injectable, Logger } from '@nestjs/common';
import {
  gateReply,
  reactionFor,
  seededRandom,
  shapeBeats,
  type Disposition,
  type InterruptionAction,
} from '@dirigent/router-domain';
import { ChannelActivity } from './channel-activity';
import { ComposeReply, saysNothing, type Composed } from './compose-reply';
import type { Planned, TurnRequest } from './turn-record';

/**
 * What the chosen shape will say: nothing, a reaction on the message (or the channel's last
 * human one), the withheld beats of a burst that goes on, or the synthesizer's answer
 * through the persona's gates, shaped into beats.
 */
@Injectable()
export class PlanReply {
  private readonly log = new Logger('router:turn');

  constructor(
    private readonly compose: ComposeReply,
    private readonly activity: ChannelActivity,
  ) {}

  async run(
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
}
