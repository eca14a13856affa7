import {
  evolveChannel,
  reactToChannelEvent,
  type ChannelEvent,
  type ChannelState,
  type Effect,
  type TurnDomainConfig,
} from '@dirigent/turn-domain';

/** An effect of a commit and the turn it serves (null: it serves no turn). */
export interface PlannedEffect {
  readonly effect: Effect;
  /** Deterministic id: commit sequence, event and effect index. */
  readonly id: string;
  readonly turnId: string | null;
}

const turnOf = (event: ChannelEvent): string | null => {
  const turnId = (event.data as { turnId?: unknown } | undefined)?.turnId;
  return typeof turnId === 'string' ? turnId : null;
};

/** The effects of commit `seq` (its `events`, applied to `before`) and the state after it. */
export function planEffects(
  before: ChannelState,
  events: readonly ChannelEvent[],
  seq: number,
  config: TurnDomainConfig,
): { state: ChannelState; effects: PlannedEffect[] } {
  let state = before;
  const effects: PlannedEffect[] = [];
  for (let i = 0; i < events.length; i++) {
    state = evolveChannel(state, events[i]);
    const turnId = turnOf(events[i]);
    reactToChannelEvent(events[i], state, config).forEach((effect, j) =>
      effects.push({ effect, id: `tc:${seq}:${i}:${j}`, turnId }),
    );
  }
  return { state, effects };
}

/**
 * Whether the effect depends on its turn still being open: grants, pings and timers do;
 * cancelling a timer and logging are harmless whenever they run (CONTRIBUTING.md § Habits).
 */
export function isFenced(p: PlannedEffect): boolean {
  if (p.effect.kind === 'cancel' || p.effect.kind === 'log') return false;
  // A notice tells what happened to a turn that just closed (a skipped speaker).
  if (p.effect.kind === 'send-message' && p.effect.purpose === 'notice') return false;
  return p.turnId !== null || p.effect.kind === 'publish-granted';
}

const effectTurn = (p: PlannedEffect): string | null =>
  p.effect.kind === 'publish-granted' ? p.effect.turnId : p.turnId;

/** A fenced effect may run only while its turn is the channel's open turn. */
export function isCurrent(p: PlannedEffect, latestTurnId: string | null): boolean {
  return !isFenced(p) || (latestTurnId !== null && effectTurn(p) === latestTurnId);
}
