import { OrchestratorRun } from './orchestrator-run.entity';

/** The orchestrator's tables (Migration20261123170000_orchestrator_runs). */
export const orchestratorEntities = [OrchestratorRun];
