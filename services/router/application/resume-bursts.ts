import { Injectable, Logger } from '@nestjs/common';
import { KeyedQueue } from '@dirigent/messaging';
import type { Voice } from '@dirigent/router-domain';
import { BurstsCutShort, type Resumable } from './bursts-cut-short';
import type { SeenMessage } from './channel-activity';
import { DeliverBeats } from './deliver-beats';
import { ExecuteTurn } from './execute-turn';
import type { OpenInbound } from './stores';

/**
 * At start: the bursts a restart cut short (`router_bursts` still running). One whose human
 * interruption was claimed (`router_inbound.claimed_by`) has that message judged now, as
 * the dead process would have (fold, abort or continue, with the beats still withheld);
 * one without sends its beats still due, in its channel's lane, where a human message
 * interrupts it as usual. Its decision and a warning say it was resumed.
 */
@Injectable()
export class ResumeBursts {
  private readonly log = new Logger('router:bursts');

  constructor(
    private readonly cutShort: BurstsCutShort,
    private readonly beats: DeliverBeats,
    private readonly execute: ExecuteTurn,
    private readonly lanes: KeyedQueue,
  ) {}

  /**
   * Reads what each running burst needs (before anything runs); the open messages the
   * bursts take as their interruptions are theirs, not resumed as new messages.
   */
  prepare(
    open: readonly OpenInbound[],
    seen: (o: OpenInbound) => SeenMessage,
  ): Promise<{ plans: Resumable[]; taken: Set<string> }> {
    return this.cutShort.prepare(open, seen);
  }

  /** Queues each burst in its channel's lane (call before the open messages are queued). */
  start(plans: readonly Resumable[]): void {
    for (const p of plans) {
      void this.lanes
        .run(p.burst.channelId, () => this.resume(p))
        .catch((e) =>
          this.log.error(
            { err: (e as Error).message, decisionId: p.burst.decisionId },
            'burst not resumed',
          ),
        );
    }
  }

  private async resume({ burst, decision, agent, request, interrupter }: Resumable) {
    const { decisionId, channelId, sent, sentIds } = burst;
    this.log.warn(
      {
        decisionId,
        channelId,
        sent,
        due: decision.beats.length - sent,
        interrupter: interrupter?.messageId,
      },
      interrupter
        ? 'burst cut by a restart: judging its interruption'
        : 'burst cut by a restart: sending the beats still due',
    );
    const dispatched = interrupter
      ? { sentIds, atBeat: sent, interrupter, durable: true }
      : await this.beats.dispatch(decision, {
          agent,
          mentioned: request.mentioned,
          burst: true,
          voice: decision.dimensions.voice as Voice,
          dispositionId: burst.dispositionId,
          durable: true,
          from: { sent, sentIds },
        });
    await this.execute.delivered(request, decision, burst.dispositionId, dispatched);
  }
}
