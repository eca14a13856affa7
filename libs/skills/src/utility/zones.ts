import { createRequire } from 'node:module';

/** A place resolved to its IANA time zone. */
export interface Zone {
  /** The name as asked for (`Lisbon`) or the zone itself (`Europe/Lisbon`, `UTC`). */
  name: string;
  timeZone: string;
}

/** Wall-clock parts of an instant in a zone (month 1-12). */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

interface CityRow {
  city: string;
  city_ascii: string;
  province: string;
  country: string;
  pop: number;
  timezone: string;
}

/** `city-timezones` holds ~7,300 cities (1.9 MB of JSON): loaded on the first look-up only. */
let cities: ((name: string) => CityRow[]) | undefined;
function lookupCity(name: string): CityRow[] {
  if (!cities) {
    const lib = createRequire(__filename)('city-timezones') as {
      lookupViaCity(input: string): CityRow[];
    };
    cities = (n) => lib.lookupViaCity(n);
  }
  return cities(name);
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether `timeZone` is an IANA zone this Node knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    partsFormatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `timeZone` at epoch ms `at`. */
export function wallClockAt(at: number, timeZone: string): WallClock & { second: number } {
  const p = Object.fromEntries(
    partsFormatter(timeZone)
      .formatToParts(new Date(at))
      .map((x) => [x.type, Number(x.value)]),
  ) as Record<string, number>;
  return {
    year: p.year,
    month: p.month,
    day: p.day,
    hour: p.hour,
    minute: p.minute,
    second: p.second,
  };
}

/** Minutes east of UTC that `timeZone` is at epoch ms `at` (DST included). */
export function offsetMinutes(at: number, timeZone: string): number {
  const w = wallClockAt(at, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(at / 1000) * 1000) / 60_000);
}

/**
 * The instant a wall-clock time in `timeZone` names, DST included: a time skipped by a
 * spring-forward is read with the offset before the jump (02:30 → 03:30), a time that
 * happens twice in the autumn is the first of the two.
 *
 * @example
 * zonedInstant({ year: 2026, month: 3, day: 29, hour: 18, minute: 0 }, 'Europe/Lisbon');
 * // Date.parse('2026-03-29T17:00:00Z') (Lisbon is on summer time from that morning)
 */
export function zonedInstant(w: WallClock, timeZone: string): number {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  // Offsets change at most once a day: the ones a day before and after are the candidates.
  const before = offsetMinutes(asUtc - 86_400_000, timeZone);
  const after = offsetMinutes(asUtc + 86_400_000, timeZone);
  const valid = [...new Set([before, after])]
    .map((o) => asUtc - o * 60_000)
    .filter((t) => offsetMinutes(t, timeZone) * 60_000 === asUtc - t);
  return valid.length ? Math.min(...valid) : asUtc - before * 60_000;
}

const ALIASES: Record<string, string> = {
  utc: 'UTC',
  gmt: 'UTC',
  z: 'UTC',
  zulu: 'UTC',
  nyc: 'America/New_York',
  'new york city': 'America/New_York',
  la: 'America/Los_Angeles',
  sf: 'America/Los_Angeles',
  'san francisco': 'America/Los_Angeles',
  'washington dc': 'America/New_York',
  'washington d.c.': 'America/New_York',
};

const title = (s: string) => s.replace(/\b\p{L}/gu, (c) => c.toUpperCase());

/**
 * The time zone of a place: an IANA zone (`Asia/Tokyo`), `UTC`/`GMT`, or a city of the
 * `city-timezones` table (`Lisbon`, `new york`; the most populous of a name wins, `Paris,
 * Texas` narrows it by province or country). Null when nothing matches.
 */
export function zoneOf(place: string): Zone | null {
  const name = place
    .trim()
    .replace(/^(?:the\s+)?(?:city\s+of\s+)/i, '')
    .replace(/[.?!]+$/, '')
    .trim();
  if (!name) return null;
  const alias = ALIASES[name.toLowerCase()];
  if (alias) return { name: alias === 'UTC' ? 'UTC' : title(name), timeZone: alias };
  if (/^[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+$/.test(name) && isTimeZone(name))
    return { name, timeZone: name };
  const [city, ...qualifier] = name.split(',').map((s) => s.trim());
  let rows = lookupCity(city);
  const where = qualifier.join(' ').toLowerCase();
  if (where)
    rows = rows.filter((r) =>
      [r.province, r.country].some((x) => x.toLowerCase().startsWith(where)),
    );
  const best = rows.filter((r) => isTimeZone(r.timezone)).sort((a, b) => b.pop - a.pop)[0];
  return best ? { name: best.city, timeZone: best.timezone } : null;
}
