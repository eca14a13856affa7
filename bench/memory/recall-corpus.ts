import { prng } from './corpus';
import { LIFE_EVENTS, SMALL_TALK, type LifeEvent } from './life-events';

/**
 * The recall corpus: months of multi-session conversations among a dozen people across
 * channels, generated from a seed. Each person lives through some of the life events of
 * `life-events.ts`; several people share a kind of event (with different details), a few
 * live one kind twice in different months. Questions about them paraphrase instead of
 * repeating the words said, name the person, sometimes name the month or a relative time,
 * and their evidence is the turn holding the fact: a statement, or a short answer whose
 * topic is in the friend's prompt before it, or two statements in different sessions and
 * channels. The same people also talk near each topic without answering it.
 */

const DAY = 86_400_000;
const MONTHS =
  'January February March April May June July August September October November December'.split(
    ' ',
  );
const ALL_PEOPLE = [
  'Priya',
  'Tom',
  'Ana',
  'Marcus',
  'Lena Fischer',
  'Kofi',
  'Yuki',
  'Sofia',
  'Daniel',
  'Amara',
  'Jonas',
  'Mei Lin',
];
const TAILS = ['', '', ' honestly', ' lol', ' haha', ' !', ' tbh', ' for real', ' :)'];

export interface CorpusMessage {
  channel: number;
  messageId: string;
  author: number;
  content: string;
  at: number;
}

export interface RecallQuestion {
  text: string;
  /** Message ids of the turns that answer it (any one counts). */
  evidence: string[];
  kind: 'statement' | 'answer-in-context' | 'across-sessions' | 'dated' | 'relative-time';
}

export interface RecallCorpus {
  people: string[];
  channels: number;
  messages: CorpusMessage[];
  questions: RecallQuestion[];
}

interface Plant {
  person: number;
  event: LifeEvent;
  value: string;
  style: 'statement' | 'answer-in-context' | 'across-sessions';
  /** Sessions that carry it (two for across-sessions). */
  sessions: number[];
  ids: string[];
}

/** The two shapes: a guild of a dozen people in five channels, or two friends in one. */
export const SHAPES = {
  guild: { people: 12, channels: 5, sessions: 160, events: 7 },
  pair: { people: 2, channels: 1, sessions: 30, events: 12 },
} as const;

/**
 * The corpus for a seed and shape, its newest message a day before `now`.
 *
 * @example
 * const { messages, questions } = recallCorpus(7, Date.now(), SHAPES.pair);
 */
export function recallCorpus(
  seed: number,
  now: number,
  shape: { people: number; channels: number; sessions: number; events: number } = SHAPES.guild,
): RecallCorpus {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const { channels, sessions } = shape;
  const PEOPLE = [...ALL_PEOPLE].sort(() => rand() - 0.5).slice(0, shape.people);
  let nextId = 0;
  const id = () => String(1_000_000 + nextId++);
  const start = now - 300 * DAY;
  const days = Array.from({ length: sessions }, (_, i) =>
    Math.round(start / DAY + (i * 298) / sessions + rand()),
  );
  const meta = days.map((d) => {
    const a = Math.floor(rand() * PEOPLE.length);
    let b = Math.floor(rand() * (PEOPLE.length - 1));
    if (b >= a) b++;
    const third = rand() < 0.3 ? Math.floor(rand() * PEOPLE.length) : -1;
    const people = third >= 0 && third !== a && third !== b ? [a, b, third] : [a, b];
    return {
      at: d * DAY + (9 + Math.floor(rand() * 12)) * 3_600_000,
      channel: Math.floor(rand() * channels),
      people,
    };
  });
  const sessionsOf = (p: number) => meta.flatMap((m, i) => (m.people.includes(p) ? [i] : []));

  // Who lives through what: each person a few events; some kinds twice (months apart).
  const plants: Plant[] = [];
  const twice: Plant[][] = [];
  PEOPLE.forEach((_, person) => {
    const mine = sessionsOf(person);
    const kinds = [...LIFE_EVENTS].sort(() => rand() - 0.5).slice(0, shape.events);
    kinds.forEach((event, n) => {
      const style = (['statement', 'answer-in-context', 'across-sessions'] as const)[n % 3];
      const s1 = pick(mine);
      const later = mine.filter(
        (s) =>
          meta[s].at > meta[s1].at + 20 * DAY &&
          (channels === 1 || meta[s].channel !== meta[s1].channel),
      );
      const sessionsUsed = style === 'across-sessions' && later.length ? [s1, pick(later)] : [s1];
      const plant: Plant = {
        person,
        event,
        value: pick(event.vals),
        style,
        sessions: sessionsUsed,
        ids: [],
      };
      plants.push(plant);
      if (n < 2) {
        const far = mine.filter((s) => Math.abs(meta[s].at - meta[s1].at) > 70 * DAY);
        const other = event.vals.filter((v) => v !== plant.value);
        if (far.length && other.length) {
          const again: Plant = {
            person,
            event,
            value: pick(other),
            style: 'statement',
            sessions: [pick(far)],
            ids: [],
          };
          plants.push(again);
          twice.push([plant, again]);
        }
      }
    });
  });

  // Sessions: small talk among the participants, with the plants and near-misses placed in.
  const lines: { session: number; author: number; content: string; plant?: Plant }[][] = meta.map(
    () => [],
  );
  for (const [s, m] of meta.entries()) {
    const turns = 10 + Math.floor(rand() * 14);
    for (let t = 0; t < turns; t++) {
      lines[s].push({
        session: s,
        author: m.people[t % m.people.length],
        content: pick(SMALL_TALK) + pick(TAILS),
      });
    }
  }
  const insert = (s: number, items: (typeof lines)[number]) => {
    const at = 1 + Math.floor(rand() * (lines[s].length - 1));
    lines[s].splice(at, 0, ...items);
  };
  for (const p of plants) {
    const fill = (t: string) => t.replace('{x}', p.value);
    const friend = meta[p.sessions[0]].people.find((x) => x !== p.person)!;
    if (p.style === 'answer-in-context') {
      insert(p.sessions[0], [
        { session: p.sessions[0], author: friend, content: pick(p.event.prompt) },
        { session: p.sessions[0], author: p.person, content: fill(pick(p.event.answer)), plant: p },
      ]);
    } else {
      p.event.says.slice(0, p.sessions.length).forEach((line, i) => {
        const says = p.sessions.length > 1 ? line : pick(p.event.says);
        insert(p.sessions[i], [
          { session: p.sessions[i], author: p.person, content: fill(says), plant: p },
        ]);
      });
    }
    // The same person near the topic, elsewhere, answering nothing.
    const other = pick(sessionsOf(p.person));
    insert(other, [{ session: other, author: p.person, content: pick(p.event.near) }]);
  }

  const messages: CorpusMessage[] = [];
  for (const [s, m] of meta.entries()) {
    lines[s].forEach((l, i) => {
      const messageId = id();
      l.plant?.ids.push(messageId);
      messages.push({
        channel: m.channel,
        messageId,
        author: l.author,
        content: l.content,
        at: m.at + i * (20_000 + Math.floor(rand() * 70_000)),
      });
    });
  }

  const first = (p: number) => PEOPLE[p].split(' ')[0];
  const ask = (p: Plant) => pick(p.event.asks).replace('{P}', first(p.person));
  const questions: RecallQuestion[] = [];
  const dated = new Set(twice.flat());
  for (const p of plants) {
    if (dated.has(p)) continue;
    for (let n = 0; n < 2; n++) questions.push({ text: ask(p), evidence: p.ids, kind: p.style });
  }
  for (const pair of twice) {
    for (const p of pair) {
      const at = new Date(meta[p.sessions[0]].at);
      const ago = Math.round((now - at.getTime()) / (30 * DAY));
      const when =
        rand() < 0.7 || ago < 2 ? `in ${MONTHS[at.getUTCMonth()]}` : `about ${ago} months ago`;
      const text = ask(p).replace(/\?$/, ` ${when}?`);
      questions.push({
        text,
        evidence: p.ids,
        kind: when.startsWith('in') ? 'dated' : 'relative-time',
      });
    }
  }
  return { people: PEOPLE, channels, messages, questions };
}
