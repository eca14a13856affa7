const DAY = 86_400_000;
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH = `(${MONTHS.map((m) => `${m}|${m.slice(0, 3)}`).join('|')})\\.?`;
const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  few: 3,
  couple: 2,
  several: 4,
};
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const UNITS: Record<string, number> = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };

/** A time window a question refers to, and the words that said so. */
export interface TimeWindow {
  since: number;
  until: number;
  /** The matched expression, to be left out of the words searched for. */
  text: string;
}

const utc = (y: number, m: number, d = 1) => Date.UTC(y, m, d);
const monthIndex = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.slice(0, 3)));

/** The latest `month` (0-11) that began at or before `now`, as a year. */
function latestYear(month: number, now: number): number {
  const y = new Date(now).getUTCFullYear();
  return utc(y, month) <= now ? y : y - 1;
}

type Rule = [RegExp, (m: RegExpExecArray, now: number) => [number, number] | null];

/** Most specific first: a date before a month before a year. */
const RULES: Rule[] = [
  [
    /\b(\d{4})-(\d{2})-(\d{2})\b/,
    (m) => {
      const s = utc(+m[1], +m[2] - 1, +m[3]);
      return [s, s + DAY];
    },
  ],
  [
    new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?\\b`),
    (m, now) => day(monthIndex(m[1]), +m[2], m[3], now),
  ],
  [
    new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}(?:,?\\s+(\\d{4}))?\\b`),
    (m, now) => day(monthIndex(m[2]), +m[1], m[3], now),
  ],
  [
    new RegExp(`\\b(?:(?:in|during|of|since)\\s+)?${MONTH}(?:,?\\s+(\\d{4}))?\\b`),
    (m, now) => {
      // "may" alone is a verb as often as a month: only with a preposition or a year.
      if (/^may$/.test(m[1]) && !m[2] && !/^(in|during|of|since)\s/.test(m[0])) return null;
      const mo = monthIndex(m[1]);
      const y = m[2] ? +m[2] : latestYear(mo, now);
      return [utc(y, mo), utc(y, mo + 1)];
    },
  ],
  [/\b(?:in|during|of)\s+((?:19|20)\d{2})\b/, (m) => [utc(+m[1], 0), utc(+m[1] + 1, 0)]],
  [/\byesterday\b/, (_m, now) => dayOf(now - DAY)],
  [
    /\b(?:last|on|this past) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/,
    (m, now) => {
      // The latest such day before today: "last Saturday" said on a Tuesday is 3 days back.
      const back = (new Date(now).getUTCDay() - WEEKDAYS.indexOf(m[1]) + 7) % 7 || 7;
      return dayOf(now - back * DAY);
    },
  ],
  [/\btoday\b|\bthis morning\b|\btonight\b/, (_m, now) => dayOf(now)],
  [/\blast night\b/, (_m, now) => [dayOf(now - DAY)[0] + DAY / 2, dayOf(now)[0] + DAY / 4]],
  [/\bthis week\b/, (_m, now) => [now - 7 * DAY, now + DAY]],
  [/\b(?:last|past|previous) week(?:end)?\b/, (_m, now) => [now - 14 * DAY, now]],
  [
    /\b(?:this|last|past|previous) (month|year)\b/,
    (m, now) => {
      const d = new Date(now);
      const y = d.getUTCFullYear();
      const mo = d.getUTCMonth();
      const last = !m[0].startsWith('this');
      if (m[1] === 'month') return last ? [utc(y, mo - 1), utc(y, mo)] : [utc(y, mo), now + DAY];
      return last ? [utc(y - 1, 0), utc(y, 0)] : [utc(y, 0), now + DAY];
    },
  ],
  [
    /\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple|several)\s+(?:of\s+)?(day|week|month|year)s?\s+ago\b/,
    (m, now) => {
      const n = NUMBERS[m[1]] ?? +m[1];
      // "two days ago" is a day; "a few days ago", "two weeks ago" are rough.
      if (m[2] === 'day' && !/few|couple|several/.test(m[1])) return dayOf(now - n * DAY);
      const span = n * UNITS[m[2]];
      // As people say it: "two weeks ago" is roughly, not exactly, 14 days.
      return [now - span * 1.5 - DAY, now - span * 0.5 + DAY];
    },
  ],
  [/\b(?:recently|lately|these days)\b/, (_m, now) => [now - 30 * DAY, now + DAY]],
];

function dayOf(t: number): [number, number] {
  const d = new Date(t);
  const s = utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return [s, s + DAY];
}

function day(
  mo: number,
  d: number,
  year: string | undefined,
  now: number,
): [number, number] | null {
  if (mo < 0 || d < 1 || d > 31) return null;
  const y = year ? +year : latestYear(mo, now);
  const s = utc(y, mo, d);
  return [s, s + DAY];
}

/**
 * The time window a question names ("yesterday", "last week", "in May", "on 7 May 2023",
 * "three months ago", "in 2023"), relative to `now`; null when it names none. A month or
 * day without a year is the latest one not after `now`. Questions asking "when" name no
 * window: they are answered by the dates of what is found.
 *
 * @example
 * timeWindow('what did Ana say in May?', Date.parse('2026-11-27')); // May 2026, as [since, until)
 */
export function timeWindow(question: string, now: number): TimeWindow | null {
  const q = question.toLowerCase();
  for (const [re, f] of RULES) {
    const m = re.exec(q);
    if (!m) continue;
    const w = f(m, now);
    if (w) return { since: w[0], until: w[1], text: m[0] };
  }
  return null;
}

const WEEKDAY = '(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?';
const SPEAKS_OF_TIME = new RegExp(
  [
    '\\b(yesterday|today|tonight|tomorrow|recently|lately|ago|earlier this|later this)\\b',
    `\\b(last|next|this|past|coming) (week|weekend|month|year|night|summer|winter|spring|fall|autumn|${WEEKDAY})\\b`,
    `\\b(on|every|since|until|by) ${WEEKDAY}\\b`,
    `\\b${WEEKDAY}\\b`,
    `\\b(in|since|until|by|early|late|mid) ${MONTH}\\b`,
    `\\b\\d{1,2}(st|nd|rd|th)?( of)? ${MONTH}\\b`,
    `\\b${MONTH} \\d{1,2}(st|nd|rd|th)?\\b`,
    '\\b(19|20)\\d\\d\\b',
    '\\bthe \\d{1,2}(st|nd|rd|th)\\b',
    '\\b(a|one|two|three|four|five|six|few|couple of) (days|weeks|months|years) (ago|back)\\b',
  ].join('|'),
  'i',
);

/**
 * Whether a message speaks of a time: "yesterday", "last weekend", "on Friday", "in May",
 * "the 3rd", "2019", "two weeks ago". A question asking when something happened is
 * answered by such a message more often than not.
 *
 * @example
 * mentionsTime('I went to a support group yesterday'); // true
 */
export function mentionsTime(text: string): boolean {
  return SPEAKS_OF_TIME.test(text);
}

/**
 * When what a message tells happened, from the time expression in it read against the
 * message's own time: "I went to a support group yesterday", sent at 1:56 pm on 8 May
 * 2023, tells of 7 May 2023. Null when it names no time.
 *
 * @example
 * toldWindow('we adopted a dog last week', Date.parse('2023-05-08T13:56Z')); // 24 Apr – 8 May 2023
 */
export function toldWindow(text: string, at: number): { since: number; until: number } | null {
  if (!mentionsTime(text)) return null;
  const w = timeWindow(text, at);
  return w && { since: w.since, until: w.until };
}

/** Whether a question asks when something happened ("When did …", "What year …"). */
export function asksWhen(question: string): boolean {
  return /\b(when|what (day|date|time|month|year|week)|which (day|month|year)|how long ago|since when)\b/i.test(
    question,
  );
}
