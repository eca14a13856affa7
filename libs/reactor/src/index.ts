/**
 * `@dirigent/reactor` — "do work W when condition C becomes true", never a cron: jobs
 * declared with a trigger (a durable timer, an event, a predicate over a state snapshot, or
 * all/any of them) and a run function; every firing carries its lineage (job, trigger, the
 * event or timer that caused it, the job run that scheduled it). The triggers are pure; the
 * reactor needs only a timer store (libs/timers) and, optionally, per-key lanes.
 */
export * from './trigger';
export * from './reactor';
export * from './jobs';
