import * as chrono from 'chrono-node';
import { offsetMinutes, zonedInstant } from './zones';

/** When a reminder is due, and the words of the text that said so. */
export interface ParsedWhen {
  /** Epoch ms. */
  dueAt: number;
  /** The phrase that named the time (`in 2 hours`, `Friday 18:00`). */
  phrase: string;
  /** The text without that phrase (`to water the beds`). */
  rest: string;
}

/**
 * Reads a time in plain English — relative (`in 2 hours`, `in a minute`), a weekday (`Friday
 * 18:00`), `tomorrow 9am`, a date — with `now` as the present and wall-clock times in
 * `timeZone` (an IANA zone; DST applied to the day named, not to today). Pure: the same
 * text, `now` and zone give the same instant. A time that is not after `now` is an error.
 *
 * @example
 * parseWhen('in 2 hours to water the beds', Date.parse('2026-03-27T10:00:00Z'), 'UTC');
 * // { dueAt: Date.parse('2026-03-27T12:00:00Z'), phrase: 'in 2 hours', rest: 'to water the beds' }
 */
export function parseWhen(
  text: string,
  now: number,
  timeZone: string,
): ParsedWhen | { error: string } {
  const ref = { instant: new Date(now), timezone: offsetMinutes(now, timeZone) };
  const found = chrono.parse(text, ref, { forwardDate: true })[0];
  if (!found) return { error: `cannot read a time in "${text.slice(0, 80)}"` };
  const s = found.start;
  // A relative time (or one with its own zone) is an instant already; a wall-clock time is
  // read again in the zone on its own day, so a DST change in between is applied.
  const dueAt = s.isCertain('timezoneOffset')
    ? found.date().getTime()
    : zonedInstant(
        {
          year: s.get('year')!,
          month: s.get('month')!,
          day: s.get('day')!,
          hour: s.get('hour') ?? 9,
          minute: s.get('minute') ?? 0,
        },
        timeZone,
      );
  if (dueAt <= now) return { error: `"${found.text}" is not in the future` };
  const rest = `${text.slice(0, found.index)} ${text.slice(found.index + found.text.length)}`
    .replace(/\s+/g, ' ')
    .trim();
  return { dueAt, phrase: found.text, rest };
}
