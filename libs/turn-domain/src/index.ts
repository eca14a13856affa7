/**
 * `@dirigent/turn-domain` — Dirigent's turn-taking as pure deciders.
 *
 * Channel aggregate: `initialChannelState` / `decideChannel` / `evolveChannel`, its process
 * manager `reactToChannelEvent`, and queries (`evaluateCheckTurn`, `describeChannel`).
 * Identity registry: `initialIdentityState` / `decideIdentity` / `evolveIdentity`.
 * No I/O, clocks or randomness: everything arrives in commands.
 */
export * from './shared/result';
export { isAfter } from './shared/snowflake';
export { mulberry32, seededShuffle } from './shared/prng';
export * from './channel/types';
export * from './channel/commands';
export * from './channel/events';
export * from './channel/rules';
export * from './channel/evolve';
export * from './channel/decide';
export * from './channel/queries';
export * from './channel/react';
export * from './channel/handle';
export * from './identity/identity';
export * from './channel/snapshot';
