import { Matches } from 'class-validator';

/** Discord snowflakes are decimal ids of up to 20 digits. */
export const SNOWFLAKE_PATTERN = /^\d{1,20}$/;

/**
 * Orders two Discord snowflakes (decimal strings) as the numbers they are: the order
 * Discord made them in. Exact without BigInt: a shorter id is the smaller, ids of one
 * length compare as text.
 */
export function compareSnowflakes(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The later of two snowflakes; `b` absent: `a`. */
export function laterSnowflake(a: string, b: string | undefined): string {
  return b === undefined || compareSnowflakes(a, b) > 0 ? a : b;
}

/**
 * The one agent-id rule, for the wire and the identity registry alike. Agent ids name
 * durable consumers and appear in subjects: keep them token-safe (no `.`, `*`, `>`).
 */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const AGENT_ID_RULE = '1-64 letters, digits, _ or -';

/**
 * A Dirigent instance: `master`, or a relay joined through a NATS leaf node. A relay's name
 * is the subject token its account's imports stamp on every request (`dirigent.relay.<name>.…`).
 */
export const MASTER_INSTANCE = 'master';
export const INSTANCE_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const INSTANCE_RULE =
  '1-32 lower-case letters, digits or -, starting with a letter or digit';

/** A Discord snowflake property. */
export const Snowflake = () =>
  Matches(SNOWFLAKE_PATTERN, { message: '$property must be a Discord snowflake' });
/** An array of Discord snowflakes: each element is checked. */
export const Snowflakes = () =>
  Matches(SNOWFLAKE_PATTERN, {
    each: true,
    message: 'each of $property must be a Discord snowflake',
  });
/** An agent id property. */
export const AgentId = () =>
  Matches(AGENT_ID_PATTERN, { message: `$property must be ${AGENT_ID_RULE}` });
