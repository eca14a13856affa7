// The payload classes carry class-transformer decorators: plain scripts need the metadata too.
import 'reflect-metadata';
export * from './subjects';
export * from './envelope';
export * from './reply';
export * from './validation';
export * from './payloads';
export * from './llm';
export * from './memory';
export * from './discord-guilds';
export * from './envelope-types';
export * from './orchestrator';
export * from './dimensions';
export * from './decision-inputs';
export * from './router';
export * from './skills';
export * from './steward';
export * from './discord-actions';
export * from './persona';
