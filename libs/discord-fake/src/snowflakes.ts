import { randomInt } from 'node:crypto';

const DISCORD_EPOCH = 1420070400000n;

/**
 * Discord-shaped snowflakes that grow monotonically within one generator (so `?after=`
 * ordering holds) and carry random worker bits (so two fakes in parallel tests differ).
 *
 * @example
 * const ids = new SnowflakeGenerator();
 * const a = ids.next(); const b = ids.next(); // BigInt(a) < BigInt(b)
 */
export class SnowflakeGenerator {
  private readonly worker = BigInt(randomInt(0, 1024));
  private lastMs = 0n;
  private increment = 0n;

  next(): string {
    let ms = BigInt(Date.now()) - DISCORD_EPOCH;
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.increment += 1n;
      if (this.increment > 4095n) {
        ms += 1n;
        this.increment = 0n;
      }
    } else {
      this.increment = 0n;
    }
    this.lastMs = ms;
    return ((ms << 22n) | (this.worker << 12n) | this.increment).toString();
  }
}

/** The time a snowflake was made (ISO 8601), as Discord's `timestamp` of a message shows it. */
export function snowflakeTime(id: string): string {
  return new Date(Number((BigInt(id) >> 22n) + DISCORD_EPOCH)).toISOString();
}
