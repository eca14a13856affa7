import { wallClockAt, zonedInstant, zoneOf, type Zone } from './zones';

const TIME =
  /\b(?:(noon|midday|midnight|now)|(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?)(?![\w:])/i;
const SPLIT = /\s+(?:in|to|into|for|at)\s+(?!\d)(?!.*\s(?:in|to|into)\s)/i;

const clock = (at: number, timeZone: string, withDay: boolean) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    ...(withDay ? { weekday: 'short', day: 'numeric', month: 'short' } : {}),
  }).format(new Date(at));

/** `7pm` → 19:00, `noon` → 12:00, `18:30` → 18:30; null when it names no time of day. */
function timeOfDay(m: RegExpExecArray): { hour: number; minute: number } | 'now' | null {
  const word = m[1]?.toLowerCase();
  if (word === 'now') return 'now';
  if (word === 'noon' || word === 'midday') return { hour: 12, minute: 0 };
  if (word === 'midnight') return { hour: 0, minute: 0 };
  let hour = Number(m[2]);
  const minute = m[3] ? Number(m[3]) : 0;
  const meridiem = m[4]?.toLowerCase().replace(/\./g, '');
  if (!m[3] && !meridiem) return null;
  if (minute > 59) return null;
  if (meridiem) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
  } else if (hour > 23) return null;
  return { hour, minute };
}

/**
 * A time-zone conversion in plain words, with Node's IANA zones (DST on the day in question):
 * `7pm Lisbon in Tokyo`, `18:30 New York to London`, `what time is it in Tokyo`. A time
 * without a place is read in `homeZone`; no time means now. Pure but for the zone table.
 *
 * @example
 * convertTime('7pm Lisbon in Tokyo', Date.parse('2026-07-01T10:00:00Z'), 'UTC');
 * // { result: '19:00 in Lisbon is 03:00 (Thu 2 Jul) in Tokyo.' }
 */
export function convertTime(
  text: string,
  now: number,
  homeZone: string,
): { result: string } | { error: string } {
  const cleaned = text
    .trim()
    .replace(/[?!]+$/, '')
    .replace(/^(?:please\s+)?(?:convert|what(?:'s| is)?|whats)\s+/i, '')
    .replace(/\b(?:what\s+)?time\s+(?:is\s+it\s+)?(?=in\b)/i, '')
    .replace(/\btime\b/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const split = SPLIT.exec(` ${cleaned}`);
  const left = split ? ` ${cleaned}`.slice(0, split.index).trim() : '';
  const targetName = split ? ` ${cleaned}`.slice(split.index + split[0].length).trim() : cleaned;
  const target = zoneOf(targetName);
  if (!target) return { error: `I don't know the time zone of "${targetName.slice(0, 60)}"` };
  const m = TIME.exec(left);
  const when = m ? timeOfDay(m) : 'now';
  if (m && !when) return { error: `cannot read a time of day in "${left.slice(0, 60)}"` };
  const sourceName = (m ? left.slice(0, m.index) + left.slice(m.index + m[0].length) : left)
    .replace(/^\s*(?:at|in|from)\s+|\s+(?:at|in|from)\s*$/gi, '')
    .replace(/^\s*(?:at|in|from)\s+/i, '')
    .trim();
  const home: Zone = { name: homeZone === 'UTC' ? 'UTC' : homeZone, timeZone: homeZone };
  const source = sourceName ? zoneOf(sourceName) : home;
  if (!source) return { error: `I don't know the time zone of "${sourceName.slice(0, 60)}"` };
  if (when === 'now') {
    return { result: `It's ${clock(now, target.timeZone, true)} in ${target.name} now.` };
  }
  const today = wallClockAt(now, source.timeZone);
  const at = zonedInstant({ ...today, ...when }, source.timeZone);
  const dayOf = (tz: string) => {
    const w = wallClockAt(at, tz);
    return `${w.year}-${w.month}-${w.day}`;
  };
  const otherDay = dayOf(source.timeZone) !== dayOf(target.timeZone);
  return {
    result: `${clock(at, source.timeZone, false)} in ${source.name} is ${clock(
      at,
      target.timeZone,
      otherDay,
    )} in ${target.name}.`,
  };
}
