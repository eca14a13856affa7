/**
 * Where tests find NATS and Postgres: the int and e2e runs' own server and scratch database,
 * which jest's global setup publishes through these variables (test/global-setup.ts); the
 * machine's defaults only when a file runs outside that setup.
 */
export const testNatsUrl = () => process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const testDatabaseUrl = () =>
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
