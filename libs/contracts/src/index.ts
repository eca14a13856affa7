export * from './subjects';
export * from './envelope';
export * from './reply';
export * from './validation';
export * from './payloads';
export * from './llm';
export * from './discord-guilds';
