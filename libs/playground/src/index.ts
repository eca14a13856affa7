/**
 * `@dirigent/playground` — Dirigent without Discord: a local Discord with a seeded guild,
 * a web page to write as a human and watch turns pass, and three demo agents that join
 * through the relay client and answer through the model gateway.
 */
export * from './playground';
export * from './demo-agent';
export * from './fake-guilds';
export * from './llm-config';
