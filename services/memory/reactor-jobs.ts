import { reactorJobs } from '@dirigent/service-kit';
import { CloseEpoch } from './application/close-epoch';
import { ConsolidateDossier } from './application/consolidate-dossier';
import { ExtractMoments } from './application/extract-moments';
import { RedactMemory } from './application/redact';

/**
 * Every reactor job of memory, by the use case that declares it (its `jobs()`), in the order
 * an occurrence is offered to them: a fired epoch timer reaches `moments-batch` before
 * `epoch-close`. To add a job, declare it in its use case and list the use case here.
 */
export const MEMORY_JOBS = [
  ConsolidateDossier, // dossier-consolidation
  ExtractMoments, // moments-batch
  CloseEpoch, // epoch-close
  RedactMemory, // redaction
] as const;

/** Registers `MEMORY_JOBS` on the memory's reactor at start. */
export const MemoryJobs = reactorJobs(MEMORY_JOBS);
