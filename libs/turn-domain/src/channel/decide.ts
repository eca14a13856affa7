import type { Decision } from '../shared/result';
import { assertNever } from '../shared/result';
import type { ChannelCommand } from './commands';
import type { ChannelEvent } from './events';
import type { ChannelState, TurnDomainConfig } from './types';
import { DEFAULT_TURN_CONFIG } from './types';

import { Draft } from './draft';
import {
  createChannel,
  createDiscussion,
  setMode,
  setShuffle,
  setWakeMode,
  refreshMembers,
  completeDiscussion,
} from './decide-setup';
import {
  observeMessage,
  checkTurn,
  completeTurn,
  confirmDelivery,
  deliveryTimeout,
} from './decide-turns';
import { advanceTurn, speakerTimeout, typingHoldExpired, typingStarted } from './decide-floor';

/**
 * Decides what a command means for one channel. Pure: everything it needs (ids, seeds,
 * resolved members, configuration) is in its arguments.
 *
 * @example
 * const decision = decideChannel(
 *   { type: 'CompleteTurn', data: { agentId: 'alice', runId: 'r1', text: 'NO_REPLY' } },
 *   state,
 *   DEFAULT_TURN_CONFIG,
 * );
 * if (decision.ok) for (const e of decision.events) state = evolveChannel(state, e);
 * else reply({ ok: false, error: decision.error });
 */
export function decideChannel(
  command: ChannelCommand,
  state: ChannelState,
  config: TurnDomainConfig = DEFAULT_TURN_CONFIG,
): Decision<ChannelEvent> {
  const d = new Draft(
    state,
    config,
    command.seed,
    typeof command.at === 'number' ? command.at : null,
  );
  switch (command.type) {
    case 'CreateChannel':
      return createChannel(command, d);
    case 'CreateDiscussion':
      return createDiscussion(command, d);
    case 'SetMode':
      return setMode(command, d);
    case 'SetShuffle':
      return setShuffle(command, d);
    case 'SetWakeMode':
      return setWakeMode(command, d);
    case 'RefreshMembers':
      return refreshMembers(command, d);
    case 'ObserveMessage':
      return observeMessage(command, d);
    case 'CheckTurn':
      return checkTurn(command, d);
    case 'CompleteTurn':
      return completeTurn(command, d);
    case 'ConfirmDelivery':
      return confirmDelivery(command, d);
    case 'DeliveryTimeout':
      return deliveryTimeout(command, d);
    case 'CompleteDiscussion':
      return completeDiscussion(command, d);
    case 'SpeakerTimeout':
      return speakerTimeout(command, d);
    case 'AdvanceTurn':
      return advanceTurn(command, d);
    case 'TypingStarted':
      return typingStarted(command, d);
    case 'TypingHoldExpired':
      return typingHoldExpired(command, d);
    default:
      return assertNever(command);
  }
}
