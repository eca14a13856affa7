/**
 * `@dirigent/control-web` — the control page `/dirigent`: identity registry, guilds and
 * channels with live turn state and timelines, dead letters. A Nest module for the turn
 * coordinator's HTTP server; it reads the coordinator's read model in Postgres and acts
 * over NATS.
 */
export * from './auth';
export * from './timeline';
export * from './timeline-svg';
export * from './control-data';
export * from './control-web.module';
export * from './control-web.controller';
export * from './live-hub';
export * from './read-model';
export * from './coalesce';
export * from './insight-data';
export * from './with-control-page';
export { controlPage, loginPage, disabledPage } from './page';
