import type { DomainError } from '../shared/result';
import type { ChannelCommand } from './commands';
import { decideChannel } from './decide';
import type { ChannelEvent } from './events';
import { evolveChannel } from './evolve';
import type { Effect } from './react';
import { reactToChannelEvent } from './react';
import type { ChannelState, TurnDomainConfig } from './types';
import { DEFAULT_TURN_CONFIG } from './types';

export type ChannelCommandOutcome =
  | {
      readonly ok: true;
      /** Append these to the channel's stream (expected revision = the state's). */
      readonly events: readonly ChannelEvent[];
      /** The state after the events. */
      readonly state: ChannelState;
      /** Perform these once the append succeeded, in order. */
      readonly effects: readonly Effect[];
    }
  | { readonly ok: false; readonly error: DomainError };

/**
 * decide → evolve → react in one call: what a command handler in the service needs.
 * Still pure; the caller appends the events and only then performs the effects.
 *
 * @example
 * const out = runChannelCommand(command, state, config);
 * if (!out.ok) return reply({ ok: false, error: out.error });
 * await store.append(streamOf(channelId), out.events, { expectedRevision });
 * for (const effect of out.effects) await perform(effect);
 */
export function runChannelCommand(
  command: ChannelCommand,
  state: ChannelState,
  config: TurnDomainConfig = DEFAULT_TURN_CONFIG,
): ChannelCommandOutcome {
  const decision = decideChannel(command, state, config);
  if (!decision.ok) return decision;
  let next = state;
  const effects: Effect[] = [];
  for (const event of decision.events) {
    next = evolveChannel(next, event);
    effects.push(...reactToChannelEvent(event, next, config));
  }
  return { ok: true, events: decision.events, state: next, effects };
}
