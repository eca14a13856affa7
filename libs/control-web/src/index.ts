/**
 * `@dirigent/control-web` — the control page `/dirigent`: identity registry, guilds and
 * channels with live turn state and timelines, dead letters. A Nest module for the turn
 * coordinator's HTTP server; it talks to Dirigent only over NATS.
 */
export * from './auth';
export * from './timeline';
export * from './timeline-svg';
export * from './control-data';
export * from './control-web.module';
export * from './with-control-page';
export { controlPage, loginPage, disabledPage, SETTABLE_MODES } from './page';
