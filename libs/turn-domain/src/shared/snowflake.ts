/**
 * Orders two Discord snowflakes (decimal strings). Comparing by length first keeps this exact
 * without BigInt and without trusting lexical order across different lengths.
 */
export function compareSnowflakes(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when `id` is strictly after `anchor`; a missing anchor means "anything counts". */
export function isAfter(id: string, anchor: string | null): boolean {
  return anchor === null || compareSnowflakes(id, anchor) > 0;
}

const DISCORD_EPOCH = 1420070400000;

/** When a Discord snowflake was created (ms since epoch); null for anything not a snowflake. */
export function snowflakeTime(id: string): number | null {
  if (!/^\d{1,20}$/.test(id)) return null;
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH;
}
