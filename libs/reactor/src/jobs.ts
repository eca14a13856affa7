import type { JobSpec, Reactor } from './reactor';

/** A job as the piece it belongs to declares it, for its service's registry to register. */
export interface DeclaredJob {
  readonly name: string;
  register(reactor: Reactor): void;
}

/** A piece that declares reactor jobs (listed in its service's one registry of jobs). */
export interface JobOwner {
  jobs(): readonly DeclaredJob[];
}

/**
 * Declares a job without registering it: the service's registry registers every owner's jobs
 * from one list, in its order (the order an occurrence is offered to them).
 *
 * @example
 * jobs() {
 *   return [declareJob({ name: 'epoch-close', trigger: due, parse: EpochCloseDue.create, run: (d) => this.run(d) })];
 * }
 */
export function declareJob<D, S = undefined>(spec: JobSpec<D, S>): DeclaredJob {
  return { name: spec.name, register: (reactor) => reactor.job(spec) };
}

/** Registers the jobs of `owners`, in order. */
export function registerJobs(reactor: Reactor, owners: readonly JobOwner[]): void {
  for (const owner of owners) for (const job of owner.jobs()) job.register(reactor);
}
