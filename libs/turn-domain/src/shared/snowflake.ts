import { compareSnowflakes } from '@dirigent/contracts';

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
