import { NO_REPLY } from '@dirigent/contracts';
import { participantReply } from './offline-reply';
import type { ChatRequest } from './request';
import { spliceProblems } from '../testing/spliced';

/** A seeded generator (mulberry32): the same seed, the same 200 cases. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, of: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] };
}

const SPEAKERS = ['Ada', 'Basil', 'Clio', 'Dit', 'Molt'];
const PEOPLE = ['Sam', 'Ana', 'You (human)', 'Priya'];
const TOPICS = [
  'the peppers in the raised beds',
  'the cello lessons',
  'the summer party venue',
  'the sourdough starter',
  'splitting the bill between three people',
  'the tomato seedlings',
  'board game night',
];

/** What people and agents say; some lines are the old spliced replies themselves. */
const LINES = [
  "I'm learning the cello these days.",
  "I've just moved to Berlin for work.",
  'I am planning a trip to Lisbon in May, any tips?',
  'I was out in the garden all morning.',
  'I started learning pottery this week and I live in Porto now.',
  'we decided the summer party venue is the old lighthouse',
  'Open question on peppers in the raised beds; anyone here know?',
  'How do you split a bill between three people?',
  'the tomato seedlings need more light, they are getting leggy',
  'My sourdough starter finally doubled overnight!',
  'Board game night moves to Friday. Bring snacks if you can. The shop closes at nine, so come early and we can set up the big table before everyone arrives.',
  'He said "water them at dusk" and it worked',
  "Good question about between three people. I don't know yet; what do you think?",
  'hey everyone',
  'ok so we decided: the raised beds get peppers and the pots get herbs',
];

function message(r: ReturnType<typeof random>): string {
  const topic = r.of(TOPICS);
  return r.of([
    () => r.of(['hey everyone!', 'hello all', 'hi there', 'good morning folks']),
    () => r.of(['thanks!', 'thank you, that helps', 'cheers']),
    () => `do you remember what we said about ${topic}?`,
    () => `what did ${r.of(PEOPLE)} say about ${topic}?`,
    () => `Dit, do you remember where I said I am travelling?`,
    () => `anyone know how to handle ${topic}?`,
    () => `what do you think about ${topic}?`,
    () => `I finally sorted out ${topic} today`,
    () => `${topic} is going well`,
    () => `<@42> can you remind me what we decided about ${topic}?`,
    () => '',
  ])();
}

/** One request as the demo agents or the router build it, and the texts it carries. */
function generated(seed: number): { req: ChatRequest; sources: string[]; speaker: string } {
  const r = random(seed);
  const speaker = r.of(SPEAKERS);
  const author = r.of(PEOPLE);
  const msg = message(r);
  const memory = Array.from({ length: Math.floor(r.next() * 5) }, () => ({
    who: r.of([...PEOPLE, 'Basil', 'Clio', 'Ada']),
    text: r.of(LINES),
  }));
  const routerShape = r.next() < 0.5;
  const user = routerShape
    ? [
        '## Live transcript',
        ...memory.map((m) => `[#1100] ${m.who}: ${m.text}`),
        '',
        msg ? `## message from ${author}` : '## message',
        msg || '(none: you speak up unprompted)',
      ].join('\n')
    : [
        msg ? `## message from ${author}` : '## message',
        msg || '(none: you speak up unprompted)',
        ...(memory.length ? ['', '## memory', ...memory.map((m) => `${m.who}: ${m.text}`)] : []),
      ].join('\n');
  const system =
    speaker === 'Molt'
      ? 'You are the orchestrator. Decide whether to answer the user yourself or to delegate.'
      : `You are ${speaker}, a friendly demo agent in a Discord community.`;
  return {
    req: {
      model: 'm',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    },
    sources: [msg, ...memory.map((m) => m.text)].filter(Boolean),
    speaker,
  };
}

describe('the fragment detector', () => {
  it('finds the spliced replies seen in the playground', () => {
    expect(
      spliceProblems(
        "Good question about between three people. I don't know yet; what do you think?",
        ['How do you split a bill between three people?'],
      ),
    ).toEqual([expect.stringMatching(/splices "between three people"/)]);
    expect(
      spliceProblems('I think Basil brought up Open question on peppers in the raised.', [
        'Dit, what did Basil say about the peppers?',
        'Open question on peppers in the raised beds; anyone here know?',
      ]),
    ).toEqual([expect.stringMatching(/splices "open question on peppers in the raised"/)]);
    expect(
      spliceProblems('Fair point on bike chain.', ['I finally fixed my bike chain today']),
    ).not.toEqual([]);
    expect(
      spliceProblems('Basil said: "Open question on peppers".', [
        'Open question on peppers in the raised beds; anyone here know?',
      ]),
    ).toEqual([expect.stringMatching(/neither a whole message nor a whole sentence/)]);
  });

  it('finds sentences that are not whole', () => {
    expect(spliceProblems('Interesting point about the.', [])).toEqual([
      expect.stringMatching(/ends on "the"/),
    ]);
    expect(spliceProblems('basil said hi.', [])).toEqual([
      expect.stringMatching(/does not start with a capital/),
    ]);
    expect(spliceProblems('Noted', [])).toEqual([expect.stringMatching(/does not end/)]);
    expect(spliceProblems('Sam said: "half a quote.', ['half a quote.'])).toContain(
      'an unclosed quote',
    );
  });

  it('passes whole quotes, a sentence of a long message, and a whole report of oneself', () => {
    const long =
      'Board game night moves to Friday. Bring snacks if you can. The shop closes at nine.';
    for (const [reply, sources] of [
      [
        'Last I have, Basil said: "Open question on peppers in the raised beds; anyone here know?"',
        ['Open question on peppers in the raised beds; anyone here know?'],
      ],
      ['Sam said: "hey everyone". Welcome!', ['hey everyone']],
      ['For the record, Ana said: "Board game night moves to Friday."', [long]],
      [
        "Last I have is that you said you're learning the cello these days.",
        ["I'm learning the cello these days."],
      ],
      ["Ana said they've just moved to Berlin for work.", ["I've just moved to Berlin for work."]],
      [
        'Ana said they were out in the garden all morning.',
        ['I was out in the garden all morning.'],
      ],
    ] as const) {
      expect([reply, spliceProblems(reply, sources)]).toEqual([reply, []]);
    }
  });
});

describe('the offline model over 200 generated conversations', () => {
  const cases = Array.from({ length: 200 }, (_, i) => generated(1000 + i));
  const replies = cases.map((c) => ({ ...c, reply: participantReply(c.req) }));

  it('replies in whole sentences, and quotes or reports only whole ones', () => {
    const bad = replies
      .filter((c) => c.reply !== NO_REPLY)
      .map((c) => ({ reply: c.reply, problems: spliceProblems(c.reply, c.sources) }))
      .filter((c) => c.problems.length);
    expect(bad).toEqual([]);
  });

  it('recalls often enough for the check to mean something, in distinct voices', () => {
    const spoken = replies.filter((c) => c.reply !== NO_REPLY);
    expect(spoken.length).toBeGreaterThan(150);
    expect(spoken.filter((c) => /said: "/.test(c.reply)).length).toBeGreaterThan(20);
    expect(spoken.filter((c) => / said (you|they)('|\s)/.test(c.reply)).length).toBeGreaterThan(3);
    // Each voice has its own words: the five speakers share few replies.
    const bySpeaker = new Map<string, Set<string>>();
    for (const c of spoken) {
      const set = bySpeaker.get(c.speaker) ?? new Set<string>();
      set.add(c.reply);
      bySpeaker.set(c.speaker, set);
    }
    const [ada, basil, clio, dit, molt] = SPEAKERS.map((s) => bySpeaker.get(s) ?? new Set());
    for (const [x, y] of [
      [ada, basil],
      [basil, clio],
      [clio, dit],
      [dit, molt],
      [ada, molt],
    ]) {
      expect([...x].filter((t) => y.has(t))).toEqual([]);
    }
  });
});
