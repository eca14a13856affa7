import { Matches } from 'class-validator';

/** Discord snowflakes are decimal ids of up to 20 digits. */
export const SNOWFLAKE_PATTERN = /^\d{1,20}$/;

/**
 * The one agent-id rule, for the wire and the identity registry alike. Agent ids name
 * durable consumers and appear in subjects: keep them token-safe (no `.`, `*`, `>`).
 */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const AGENT_ID_RULE = '1-64 letters, digits, _ or -';

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
