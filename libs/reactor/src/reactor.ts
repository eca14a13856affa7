import {
  evaluate,
  wants,
  type Occurrence,
  type TimerTrigger,
  type Trigger,
  type TriggerKind,
} from './trigger';

/** Why a job ran: stored with what it decided, so a log can answer "why did this run". */
export interface Lineage {
  job: string;
  trigger: TriggerKind;
  /** The event or timer firing (its envelope id) that caused the run. */
  causeId: string;
  /** The job run that scheduled this one (e.g. the decision that armed a follow-up). */
  parentId?: string;
  /** A composite's members that held, in order. */
  via?: string[];
}

/** What `offer` did with an occurrence, per job that wanted it. */
export type Outcome =
  | { job: string; fired: true; lineage: Lineage }
  | { job: string; fired: false; reason: string; causeId: string };

export interface JobSpec<D, S> {
  name: string;
  trigger: Trigger<S>;
  /** Validates the occurrence's data (throws on bad input, which then is never retried). */
  parse?: (data: unknown) => D;
  /** Occurrences with the same lane key are evaluated and run one at a time, in order. */
  lane?: (data: D) => string;
  /** The state the trigger's predicates read, taken once the timer or event matched. */
  snapshot?: (data: D, o: Occurrence) => S | Promise<S>;
  run: (data: D, firing: { lineage: Lineage; snapshot: S }) => unknown;
}

/** Durable timers (libs/timers' `DurableTimers`): a key holds at most one pending timer. */
export interface TimerStore {
  schedule(
    key: string,
    dueAt: Date,
    command: { subject: string; type: string; data: unknown; causationId?: string },
  ): Promise<void>;
  cancel(key: string): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface Lanes {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

/** Builds the occurrence of a JetStream delivery (`kind` by the consumer it came on). */
export function occurrence(
  kind: Occurrence['kind'],
  subject: string,
  e: { id: string; type: string; data: unknown; causationId?: string },
): Occurrence {
  return {
    kind,
    id: e.id,
    subject,
    type: e.type,
    data: e.data,
    ...(e.causationId ? { parentId: e.causationId } : {}),
  };
}

/**
 * "Do work W when condition C becomes true", never a cron: jobs declared with a trigger
 * (timer, event, predicate, all/any of them) and a run function. Services hand it what
 * their consumers receive (`offer`); each job that wants the occurrence takes its snapshot,
 * is evaluated, and runs with its lineage. Timers are durable (`arm` replaces a key's
 * pending timer, so re-arming is one call) and carry the arming job's id as their cause.
 *
 * @example
 * const reactor = new Reactor({ timers: await DurableTimers.open(messaging, 'memory') });
 * const due = timer({ subject: subject.timerFired('memory', 'epoch-close'), type: 'memory.epoch-close-due' });
 * reactor.job({ name: 'epoch-close', trigger: due, parse: EpochCloseDue.create, run: (d) => close(d) });
 * await reactor.arm(due, `epoch:${channelId}`, lastMessageAt + gapMs, { guildId, channelId });
 * // in the timer consumer:
 * await reactor.offer(occurrence('timer', ctx.subject, ctx.envelope));
 */
export class Reactor {
  private readonly jobs = new Map<string, JobSpec<never, never>>();

  constructor(
    private readonly opts: {
      timers?: TimerStore;
      lanes?: Lanes;
      /** Called with every outcome (a firing or why a wanted occurrence did not fire). */
      log?: (o: Outcome) => void;
    } = {},
  ) {}

  /** Declares a job; its name is its identity in the lineage, so it is unique. */
  job<D, S = undefined>(spec: JobSpec<D, S>): void {
    if (this.jobs.has(spec.name)) throw new Error(`reactor job "${spec.name}" declared twice`);
    this.jobs.set(spec.name, spec as unknown as JobSpec<never, never>);
  }

  /** (Re-)arms the durable timer `key`: any timer pending under that key is replaced. */
  async arm<T>(
    t: TimerTrigger,
    key: string,
    dueAt: Date | number,
    data: T,
    parentId?: string,
  ): Promise<void> {
    await this.timerStore().schedule(key, new Date(dueAt), {
      subject: t.subject,
      type: t.type,
      data,
      ...(parentId ? { causationId: parentId } : {}),
    });
  }

  disarm(key: string): Promise<void> {
    return this.timerStore().cancel(key);
  }

  /** Offers an occurrence to every job whose trigger wants it; none: an empty list. */
  async offer(o: Occurrence): Promise<Outcome[]> {
    const out: Outcome[] = [];
    for (const job of this.jobs.values()) {
      if (!wants(job.trigger, o)) continue;
      const data = (job.parse ? job.parse(o.data) : o.data) as never;
      const attempt = () => this.attempt(job, data, o);
      const outcome = await (job.lane && this.opts.lanes
        ? this.opts.lanes.run(job.lane(data), attempt)
        : attempt());
      this.opts.log?.(outcome);
      out.push(outcome);
    }
    return out;
  }

  async start(): Promise<void> {
    await this.opts.timers?.start();
  }

  async stop(): Promise<void> {
    await this.opts.timers?.stop();
  }

  private async attempt(job: JobSpec<never, never>, data: never, o: Occurrence): Promise<Outcome> {
    const snapshot = (job.snapshot ? await job.snapshot(data, o) : undefined) as never;
    const v = evaluate(job.trigger, snapshot, o);
    if (!v.fire) return { job: job.name, fired: false, reason: v.reason, causeId: o.id };
    const lineage: Lineage = {
      job: job.name,
      trigger: job.trigger.kind,
      causeId: o.id,
      ...(o.parentId ? { parentId: o.parentId } : {}),
      ...(job.trigger.kind === 'all' || job.trigger.kind === 'any' ? { via: v.via } : {}),
    };
    await job.run(data, { lineage, snapshot });
    return { job: job.name, fired: true, lineage };
  }

  private timerStore(): TimerStore {
    if (!this.opts.timers) throw new Error('this reactor has no timers');
    return this.opts.timers;
  }
}
