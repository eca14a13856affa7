export interface ConsolidationState {
  /** Messages of the user archived since the last consolidation. */
  messagesSince: number;
  /** Characters of those messages. */
  charsSince: number;
  lastConsolidatedAt?: number;
  now: number;
}

export interface ConsolidationPolicy {
  /** Consolidate once this many messages accumulated, whatever the time. */
  messages: number;
  /** …or this many characters… */
  chars: number;
  /** …but never twice within this interval. */
  minIntervalMs: number;
  /** A user's first dossier needs only this many messages. */
  firstAfter: number;
}

export const DEFAULT_CONSOLIDATION: ConsolidationPolicy = {
  messages: 25,
  chars: 2_000,
  minIntervalMs: 10 * 60_000,
  firstAfter: 5,
};

/**
 * The reactor predicate for dossier consolidation (purpose `extract`): enough new material
 * since the last one, and not too soon after it. Never a cron.
 *
 * @example
 * shouldConsolidate({ messagesSince: 30, charsSince: 900, lastConsolidatedAt: t0, now: t0 + 3_600_000 }) // true
 */
export function shouldConsolidate(
  s: ConsolidationState,
  p: ConsolidationPolicy = DEFAULT_CONSOLIDATION,
): boolean {
  if (s.lastConsolidatedAt === undefined) return s.messagesSince >= p.firstAfter;
  if (s.now - s.lastConsolidatedAt < p.minIntervalMs) return false;
  return s.messagesSince >= p.messages || s.charsSince >= p.chars;
}
