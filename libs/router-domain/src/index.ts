/**
 * `@dirigent/router-domain` — the pure parts of Dirigent's own agents: the disposition
 * matrix and its ten canonical points, preflight, heuristic scoring with hard gates,
 * seeded sampling, output shaping (bursts, banned phrases, reactions, fan-out plan),
 * self-follow-up rolls and abort rules, and the speculative composite trigger.
 * No Nest, no I/O, no clock, no randomness: time and seeds come in.
 */
export * from './dimensions';
export * from './canonical';
export * from './seeded';
export * from './agent';
export * from './scoring';
export * from './decide';
export * from './room';
export * from './lens-choice';
export * from './interruption';
export * from './inputs';
export * from './output';
export * from './followup';
export * from './speculative';
export * from './steward';
export * from './restructure';
export * from './upkeep-proposals';
export * from './steward-upkeep';
export * from './persona';
export * from './learning';
export * from './learning-signals';
