/** Where tests find the machine's real services (override with the usual variables). */
export const testNatsUrl = () => process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const testDatabaseUrl = () =>
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
