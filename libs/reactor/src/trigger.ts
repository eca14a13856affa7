/** Something that reached the reactor: an event, or one of its durable timers coming due. */
export interface Occurrence {
  kind: 'event' | 'timer';
  /** The envelope id of the event or of the timer's firing: the cause a firing names. */
  id: string;
  subject: string;
  type: string;
  data: unknown;
  /** The job run that armed this timer (or caused this event), when it said so. */
  parentId?: string;
}

/** A durable timer of the job, armed (and re-armed) by key; it fires on `subject` as `type`. */
export interface TimerTrigger {
  kind: 'timer';
  subject: string;
  type: string;
}

/** An event whose subject matches `subject` (NATS wildcards `*`, `>`) and whose type is `type`. */
export interface EventTrigger {
  kind: 'event';
  subject?: string;
  type?: string;
}

/** A pure test over the job's state snapshot, taken when an occurrence arrives. */
export interface PredicateTrigger<S> {
  kind: 'predicate';
  name: string;
  test: (snapshot: S) => boolean;
}

/** Every member holds (`all`) or one of them does (`any`). */
export interface CompositeTrigger<S> {
  kind: 'all' | 'any';
  of: Trigger<S>[];
}

export type Trigger<S = unknown> =
  | TimerTrigger
  | EventTrigger
  | PredicateTrigger<S>
  | CompositeTrigger<S>;

export type TriggerKind = Trigger['kind'];

export const timer = (t: { subject: string; type: string }): TimerTrigger => ({
  kind: 'timer',
  ...t,
});
export const event = (match: { subject?: string; type?: string }): EventTrigger => ({
  kind: 'event',
  ...match,
});
export const predicate = <S>(
  name: string,
  test: (snapshot: S) => boolean,
): PredicateTrigger<S> => ({
  kind: 'predicate',
  name,
  test,
});
export const all = <S>(...of: Trigger<S>[]): CompositeTrigger<S> => ({ kind: 'all', of });
export const any = <S>(...of: Trigger<S>[]): CompositeTrigger<S> => ({ kind: 'any', of });

/** NATS subject matching: `*` is one token, a final `>` one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return i === p.length - 1 && s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

/** Timers and events select occurrences; predicates only gate them. */
const selects = (t: Trigger<never>): boolean =>
  t.kind === 'timer' ||
  t.kind === 'event' ||
  ((t.kind === 'all' || t.kind === 'any') && t.of.some(selects));

/**
 * Whether an occurrence concerns the trigger at all, before any snapshot is taken: its timer
 * or event matches (a predicate on its own is evaluated on every event).
 */
export function wants<S>(t: Trigger<S>, o: Occurrence): boolean {
  switch (t.kind) {
    case 'timer':
      return o.kind === 'timer' && o.type === t.type && subjectMatches(t.subject, o.subject);
    case 'event':
      return (
        o.kind === 'event' &&
        (t.type === undefined || t.type === o.type) &&
        (t.subject === undefined || subjectMatches(t.subject, o.subject))
      );
    case 'predicate':
      return o.kind === 'event';
    case 'all': {
      const selecting = t.of.filter(selects);
      return selecting.length ? selecting.every((m) => wants(m, o)) : o.kind === 'event';
    }
    case 'any':
      return t.of.some((m) => wants(m, o));
  }
}

export type Verdict = { fire: true; via: string[] } | { fire: false; reason: string };

/**
 * Evaluates the trigger for an occurrence and the job's snapshot. `via` names the members
 * that held (`timer`, `event`, predicate names); `reason` the first that did not.
 *
 * @example
 * const t = all(timer(due), predicate('quiet', (s: { quietMs: number }) => s.quietMs > 60_000));
 * evaluate(t, { quietMs: 90_000 }, firedTimer); // { fire: true, via: ['timer', 'quiet'] }
 */
export function evaluate<S>(t: Trigger<S>, snapshot: S, o?: Occurrence): Verdict {
  switch (t.kind) {
    case 'timer':
    case 'event':
      return o && wants(t, o) ? { fire: true, via: [t.kind] } : { fire: false, reason: t.kind };
    case 'predicate':
      return t.test(snapshot) ? { fire: true, via: [t.name] } : { fire: false, reason: t.name };
    case 'all': {
      const via: string[] = [];
      for (const m of t.of) {
        const v = evaluate(m, snapshot, o);
        if (!v.fire) return v;
        via.push(...v.via);
      }
      return { fire: true, via };
    }
    case 'any': {
      const reasons: string[] = [];
      for (const m of t.of) {
        const v = evaluate(m, snapshot, o);
        if (v.fire) return v;
        reasons.push(v.reason);
      }
      return { fire: false, reason: reasons.join('|') };
    }
  }
}
