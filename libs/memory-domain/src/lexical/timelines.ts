import { compareSnowflakes } from '@dirigent/contracts';
import { HEAP } from '../heap-bytes';

/**
 * Per channel, the index's slots in the order their messages were written: by time, and
 * among messages of the same time by id. It reads the index's own columns of times and ids
 * (by slot), so a message's turns around it are found without a query.
 */
export class ChannelTimelines {
  private readonly lines: number[][] = [];

  constructor(
    private readonly ats: readonly number[],
    private readonly ids: readonly string[],
  ) {}

  /**
   * Into its channel's timeline by time, and among messages of the same time by id
   * (Discord's ids grow with time): turns stamped alike, delivered in another order than
   * sent (concurrent batches, a redelivery), still sit in the order they were written.
   */
  place(ch: number, slot: number): void {
    const at = this.ats[slot];
    const line = (this.lines[ch] ??= []);
    const before = (other: number) => {
      const t = this.ats[other];
      return t < at || (t === at && idOrder(this.ids[other], this.ids[slot]) <= 0);
    };
    if (!line.length || before(line[line.length - 1])) {
      line.push(slot);
      return;
    }
    // Out of order (a late delivery): after every message before it.
    let lo = 0;
    let hi = line.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(line[mid])) lo = mid + 1;
      else hi = mid;
    }
    line.splice(lo, 0, slot);
  }

  remove(ch: number, slot: number): void {
    const line = this.lines[ch];
    const i = line ? this.indexOf(line, slot) : -1;
    if (i >= 0) line.splice(i, 1);
  }

  /**
   * The turns around a message in its channel: up to `radius` on each side, nearest
   * first, none more than `maxGapMs` from the message (another conversation).
   */
  around(
    ch: number,
    slot: number,
    radius: number,
    maxGapMs: number,
  ): { slot: number; distance: number }[] {
    const line = this.lines[ch];
    const i = line ? this.indexOf(line, slot) : -1;
    if (i < 0) return [];
    const at = this.ats[slot];
    const out: { slot: number; distance: number }[] = [];
    for (let d = 1; d <= radius; d++) {
      for (const j of [i - d, i + d]) {
        if (j < 0 || j >= line.length) continue;
        const n = line[j];
        if (Math.abs(this.ats[n] - at) <= maxGapMs) out.push({ slot: n, distance: d });
      }
    }
    return out;
  }

  /** An estimate of the heap the timelines hold (`HEAP`). */
  bytes(): number {
    let b = 0;
    for (const line of this.lines) b += line.length * HEAP.slot;
    return b;
  }

  private indexOf(line: number[], slot: number): number {
    return line.indexOf(slot, lowerBound(line, this.ats, this.ats[slot]));
  }
}

const DIGITS = /^\d+$/;

/** Ids in the order they were made: snowflakes by number, others as text. */
function idOrder(a: string, b: string): number {
  if (DIGITS.test(a) && DIGITS.test(b)) return compareSnowflakes(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index of `line` whose time is not before `at`. */
function lowerBound(line: number[], ats: readonly number[], at: number): number {
  let lo = 0;
  let hi = line.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ats[line[mid]] < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
