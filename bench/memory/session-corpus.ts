import { prng } from './corpus';
import type { CorpusMessage } from './recall-corpus';
import {
  CHAT,
  FAMILY_QUESTIONS,
  RELATIVE_TIMES,
  SESSION_EVENTS,
  type Family,
  type SessionEvent,
} from './session-events';

/**
 * The session corpus: in the shape of public long-conversation QA sets, generated from a
 * seed — two friends talk in 15 to 25 sessions over months, each session stamped like
 * "1:56 pm on 8 May, 2023", everything in one channel. A turn tells of an event with a
 * time relative to its session ("I went to the support group yesterday"); the friend
 * answers; the same two also touch each topic elsewhere without telling it. Questions name
 * a person: what happened, when it happened, what happened on a date (said as "yesterday"
 * in the turn), what someone did across sessions, what someone might do or be (open),
 * and the same questions about the friend who did not do it (adversarial: the evidence is
 * the turn of the one who did).
 */
export type SessionKind =
  | 'single-hop'
  | 'temporal'
  | 'dated'
  | 'multi-hop'
  | 'open-domain'
  | 'adversarial';

export interface SessionCorpus {
  people: string[];
  channels: number;
  messages: CorpusMessage[];
  /** Each session's stamp as written, in order. */
  sessions: string[];
  questions: { text: string; evidence: string[]; kind: SessionKind }[];
}

const DAY = 86_400_000;
const MONTHS =
  'January February March April May June July August September October November December'.split(
    ' ',
  );
const PAIRS: [string, string][] = [
  ['Maren', 'Tariq'],
  ['Joelle', 'Emeka'],
  ['Hana', 'Callum'],
  ['Ines', 'Oskar'],
  ['Nkechi', 'Pablo'],
  ['Rosa', 'Dev'],
];

/** "1:56 pm on 8 May, 2023" as epoch milliseconds (UTC). */
export function parseSessionStamp(stamp: string): number {
  const m = /^(\d{1,2}):(\d{2}) (am|pm) on (\d{1,2}) (\w+), (\d{4})$/.exec(stamp);
  const month = MONTHS.indexOf(m?.[5] ?? '');
  if (!m || month < 0) throw new Error(`not a session stamp: ${stamp}`);
  const hour = (+m[1] % 12) + (m[3] === 'pm' ? 12 : 0);
  return Date.UTC(+m[6], month, +m[4], hour, +m[2]);
}

function stampOf(t: number): string {
  const d = new Date(t);
  const h = d.getUTCHours();
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${h % 12 || 12}:${mm} ${h < 12 ? 'am' : 'pm'} on ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}, ${d.getUTCFullYear()}`;
}

const dateOf = (t: number) => {
  const d = new Date(t);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
};

interface Told {
  event: SessionEvent;
  person: number;
  session: number;
  rel: [string, number];
  id: string;
}

/**
 * One conversation of the session corpus (one guild, one channel).
 *
 * @example
 * const { messages, questions } = sessionCorpus(3);
 */
export function sessionCorpus(seed: number): SessionCorpus {
  const rand = prng(seed * 7919);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const people = PAIRS[(seed - 1) % PAIRS.length];
  const sessionCount = 15 + Math.floor(rand() * 11);
  const stamps: string[] = [];
  let t = Date.UTC(2023, (seed * 2) % 12, 3 + Math.floor(rand() * 20), 9);
  for (let s = 0; s < sessionCount; s++) {
    t += (6 + Math.floor(rand() * 15)) * DAY + Math.floor(rand() * 10 * 60) * 60_000;
    stamps.push(stampOf(t));
  }
  // Who lives through what, and in which session it is told (at most two a session).
  const events = [...SESSION_EVENTS].sort(() => rand() - 0.5).slice(0, 14 + (seed % 6));
  const told: Told[] = [];
  const load = new Array<number>(sessionCount).fill(0);
  events.forEach((event, i) => {
    let session = Math.floor(rand() * sessionCount);
    while (load[session] >= 2) session = (session + 1) % sessionCount;
    load[session]++;
    told.push({ event, person: i % 2, session, rel: pick(RELATIVE_TIMES), id: '' });
  });
  const messages: CorpusMessage[] = [];
  let nextId = 1;
  stamps.forEach((stamp, s) => {
    const start = parseSessionStamp(stamp);
    const turns: [number, string, Told?][] = [];
    let speaker = Math.floor(rand() * 2);
    const say = (text: string, who = speaker, tell?: Told) => {
      turns.push([who, text, tell]);
      speaker = 1 - who;
    };
    say(pick(CHAT.slice(0, 1)));
    say(pick(CHAT.slice(1, 3)));
    for (const e of told.filter((x) => x.session === s)) {
      if (rand() < 0.5) say('So what have you been up to?', 1 - e.person);
      say(e.event.tell.replace('{rel}', e.rel[0]), e.person, e);
      say(e.event.reply, 1 - e.person);
      say(pick(CHAT.slice(3, 10)));
    }
    // The same two touch other topics without telling them.
    const nearCount = 2 + Math.floor(rand() * 4);
    for (let n = 0; n < nearCount; n++)
      say(pick(pick(SESSION_EVENTS).near), Math.floor(rand() * 2));
    while (turns.length < 16 + Math.floor(rand() * 10)) say(pick(CHAT.slice(3)));
    say(pick(CHAT.slice(11)));
    turns.forEach(([who, text, tell], i) => {
      const messageId = String(nextId++);
      if (tell) tell.id = messageId;
      messages.push({
        channel: 0,
        messageId,
        author: who,
        content: text,
        at: start + i * (60_000 + Math.floor(rand() * 60_000)),
      });
    });
  });
  return {
    people: [...people],
    channels: 1,
    messages,
    sessions: stamps,
    questions: questionsOf(told, people, stamps, rand),
  };
}

function questionsOf(
  told: Told[],
  people: [string, string],
  stamps: string[],
  rand: () => number,
): SessionCorpus['questions'] {
  const out: SessionCorpus['questions'] = [];
  const named = (q: string, person: number) => q.replace('{P}', people[person]);
  for (const e of told) {
    out.push({ text: named(e.event.ask, e.person), evidence: [e.id], kind: 'single-hop' });
    out.push({ text: named(e.event.when, e.person), evidence: [e.id], kind: 'temporal' });
    if (e.rel[1] <= 2) {
      const on = dateOf(parseSessionStamp(stamps[e.session]) - e.rel[1] * DAY);
      out.push({
        text: `What did ${people[e.person]} do on ${on}?`,
        evidence: [e.id],
        kind: 'dated',
      });
    }
    if (rand() < 0.25) {
      const q = rand() < 0.5 ? e.event.ask : e.event.when;
      out.push({ text: named(q, 1 - e.person), evidence: [e.id], kind: 'adversarial' });
    }
  }
  for (const person of [0, 1]) {
    const byFamily = new Map<Family, string[]>();
    for (const e of told.filter((x) => x.person === person)) {
      byFamily.set(e.event.family, [...(byFamily.get(e.event.family) ?? []), e.id]);
    }
    for (const [family, ids] of byFamily) {
      if (ids.length < 2) continue;
      const q = FAMILY_QUESTIONS[family];
      out.push({ text: named(q.multi, person), evidence: ids, kind: 'multi-hop' });
      out.push({ text: named(q.open, person), evidence: ids, kind: 'open-domain' });
    }
  }
  return out;
}

/** Seeds of the conversations the bench asks. */
export const SESSION_SEEDS = [1, 2, 3, 4, 5, 6];
/**
 * Seeds of a development split: conversations the bench does not ask by default, on which
 * the ranking's parameters are chosen (`DIRIGENT_BENCH_RECALL=sessions-dev` asks them).
 * The same event templates, other draws: it keeps choices off the asked questions, not off
 * the corpus's shape.
 */
export const SESSION_DEV_SEEDS = [7, 8, 9, 10, 11, 12];

/** The session corpus's conversations, one guild each. */
export function sessionCorpora(seeds: readonly number[] = SESSION_SEEDS): SessionCorpus[] {
  return seeds.map(sessionCorpus);
}
