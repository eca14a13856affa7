/** The orchestrator's settings (`OrchestratorSettings` of `@dirigent/orchestrator`). */
export const ORCHESTRATOR_SETTINGS = Symbol('ORCHESTRATOR_SETTINGS');
/** The model gateway as the orchestrator's `ChatPort` (the router's one gateway client). */
export const CHAT_PORT = Symbol('CHAT_PORT');
/** Memory as the orchestrator's `MemoryPort` (the router's one memory client). */
export const MEMORY_PORT = Symbol('MEMORY_PORT');
/** The skill catalog the orchestrator model may call (`TurnSkills`), or null when skills are off. */
export const SKILLS_PORT = Symbol('SKILLS_PORT');
