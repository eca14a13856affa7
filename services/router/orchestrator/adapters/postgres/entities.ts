import { OrchestratorRun } from './orchestrator-run.entity';
import { RouterTaskRow } from './task.entity';

/** The orchestrator's tables (Migration20261123170000_orchestrator_runs, Migration20261128010000_router_tasks). */
export const orchestratorEntities = [OrchestratorRun, RouterTaskRow];
