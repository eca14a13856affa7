import { randomInt } from 'node:crypto';

/** A random Discord-like snowflake, so tests sharing one NATS and Postgres never collide. */
export function snowflake(): string {
  return `${Date.now()}${randomInt(100000, 999999)}`;
}

/** A random token-safe id with a prefix. */
export function uid(prefix = 't'): string {
  return `${prefix}-${Date.now().toString(36)}-${randomInt(1e9).toString(36)}`;
}
