/** The orchestrator's settings (`OrchestratorSettings` of `@dirigent/orchestrator`). */
export const ORCHESTRATOR_SETTINGS = Symbol('ORCHESTRATOR_SETTINGS');
