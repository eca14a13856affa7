import { reactorJobs } from '@dirigent/service-kit';
import { FireFollowup } from './application/fire-followup';
import { JudgeTurns } from './learning/application/judge-turns';
import { SpeculativeTurns } from './application/speculative';
import { Tasks } from './orchestrator/application/tasks';
import { ProposalEffects } from './steward/application/proposal-effects';
import { StewardUpkeep } from './steward/application/upkeep';
import { UpkeepSurvey } from './steward/application/upkeep-survey';

/**
 * Every reactor job of the router, by the piece of its area that declares it (its `jobs()`),
 * in the order an occurrence is offered to them (the two upkeep jobs read the same human
 * message). To add a job, declare it in its area and list its owner here.
 */
export const ROUTER_JOBS = [
  StewardUpkeep, // steward-thread-split, steward-pin-decision (a human's message)
  // steward-upkeep-arm (a human's message), steward-upkeep-topic-channel, -archive, -role
  // (the guild's survey timer)
  UpkeepSurvey,
  ProposalEffects, // proposal-expiry (its timer)
  Tasks, // task-deadline (its timer)
  SpeculativeTurns, // speculative-turn (its timer, then the room's predicates)
  FireFollowup, // self-followup (its timer)
  JudgeTurns, // learning-judge (its timer, a turn's window after it)
] as const;

/** Registers `ROUTER_JOBS` on the router's reactor at start. */
export const RouterJobs = reactorJobs(ROUTER_JOBS);
