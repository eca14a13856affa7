import { Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Reactor, registerJobs, type JobOwner } from '@dirigent/reactor';

/**
 * The provider that registers a service's reactor jobs from its one list (its
 * `reactor-jobs.ts`): every owner's `jobs()`, in the list's order, once the pieces are built
 * and before any consumer hands the reactor an occurrence.
 *
 * @example
 * export const MEMORY_JOBS = [ConsolidateDossier, CloseEpoch] as const;
 * // in the service's module: providers: [..., reactorJobs(MEMORY_JOBS)]
 */
export function reactorJobs(owners: readonly Type<JobOwner>[]): Type<OnModuleInit> {
  @Injectable()
  class ReactorJobs implements OnModuleInit {
    constructor(
      private readonly reactor: Reactor,
      private readonly refs: ModuleRef,
    ) {}

    onModuleInit(): void {
      const built = owners.map((o) => this.refs.get<JobOwner>(o, { strict: false }));
      registerJobs(this.reactor, built);
    }
  }
  return ReactorJobs;
}
