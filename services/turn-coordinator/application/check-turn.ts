import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CheckTurnRequest } from '@dirigent/contracts';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  evaluateCheckTurn,
  hasSeenMessage,
  type ChannelState,
  type CheckTurnResult,
} from '@dirigent/turn-domain';
import type { TurnCoordinatorConfig } from '../config';
import { Channels } from './channels';

/** check-turn: may this agent speak now? Causally consistent with `messageId`. */
@Injectable()
export class CheckTurn {
  private readonly log = new Logger('check-turn');

  constructor(
    private readonly channels: Channels,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
  ) {}

  /**
   * The answer, at once when the channel's current state is in memory and holds `messageId`
   * (if any): no promise, so the transport replies inside the request's own callback, as a
   * raw responder would. Otherwise the state is read or waited for first.
   */
  run(r: CheckTurnRequest): CheckTurnResult | Promise<CheckTurnResult> {
    const known = this.channels.stateInMemory(r.channelId);
    if (known && (!r.messageId || hasSeenMessage(known, r.messageId))) {
      const result = evaluateCheckTurn(known, r.agentId);
      // A refusal in `discord` wake mode is checked against the store (see `latest`).
      if (known.wakeMode !== 'discord' || result.allowed) return this.answer(r, known, result);
    }
    return this.latest(r).then((state) => this.answer(r, state));
  }

  /**
   * The channel's state for this request: once it has seen `messageId` (or after the wait).
   * A refusal is only given on the latest state: with a second replica (a rolling deploy)
   * the cache may be a moment behind a grant the agent has already heard of. `state()`
   * catches up with every published grant the cache does not hold (see Channels.grantHeard);
   * a channel that wakes its agents through Discord alone publishes none, so its refusals
   * are checked against the event store.
   */
  private async latest(r: CheckTurnRequest): Promise<ChannelState> {
    const state = r.messageId
      ? await this.channels.stateAfter(r.channelId, r.messageId, this.config.DIRIGENT_CHECK_WAIT_MS)
      : await this.channels.state(r.channelId);
    if (state.wakeMode === 'discord' && !evaluateCheckTurn(state, r.agentId).allowed) {
      return this.channels.freshState(r.channelId);
    }
    return state;
  }

  /**
   * The first check of a turn records the channel's latest message as the turn's anchor; the
   * answer does not depend on it, so it is not awaited: the command is queued on the channel
   * before anything that arrives later, which keeps the anchor right.
   */
  private answer(
    r: CheckTurnRequest,
    state: ChannelState,
    result = evaluateCheckTurn(state, r.agentId),
  ): CheckTurnResult {
    const turn = state.currentTurn;
    if (turn && turn.agentId === r.agentId && turn.phase === 'running' && !turn.anchorChecked) {
      this.channels
        .execute(r.channelId, { type: 'CheckTurn', data: { agentId: r.agentId } })
        .catch((e: Error) =>
          this.log.warn({ channelId: r.channelId, err: e.message }, 'anchor not recorded'),
        );
    }
    return result;
  }
}
