import { terms, words } from './analyze';
import { LexicalIndex } from './bm25';
import { withinEdits } from './edits';
import { namedPeople } from './names';
import { rankMessages, readQuestion } from './rank';
import { porterStem } from './stemmer';
import { relatedTerms } from './related';
import { asksWhen, mentionsTime, timeWindow, toldWindow } from './time-expressions';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27, 12);

describe('analysis', () => {
  it('stems as Porter does', () => {
    const cases: [string, string][] = [
      ['caresses', 'caress'],
      ['ponies', 'poni'],
      ['painting', 'paint'],
      ['painted', 'paint'],
      ['hopping', 'hop'],
      ['relational', 'relat'],
      ['adoption', 'adopt'],
      ['happiness', 'happi'],
      ['generalization', 'gener'],
      ['running', 'run'],
      ['agreed', 'agre'],
      ['sky', 'sky'],
    ];
    for (const [w, s] of cases) expect(porterStem(w)).toBe(s);
  });

  it('drops stop words and possessives, keeps numbers', () => {
    expect(words("Tom's 10k race, isn't it?")).toEqual(['tom', '10k', 'race', 'isnt', 'it']);
    expect(terms('When did Tom start painting again?')).toEqual(['tom', 'start', 'paint']);
  });
});

describe('LexicalIndex (BM25)', () => {
  const index = new LexicalIndex();
  const add = (id: string, text: string, author = 'u1', at = NOW - DAY, channelId = 'c1') =>
    index.add({
      id,
      text,
      at,
      channelId,
      authorId: author,
      authorName: author === 'u1' ? 'Tom' : 'Ana',
    });
  add('1', 'I started painting again, a sunrise over the lake', 'u1', NOW - 40 * DAY);
  add('2', 'the lake was cold this morning', 'u2', NOW - 40 * DAY + 60_000);
  add('3', 'painting the fence all weekend', 'u2', NOW - 5 * DAY);
  add('4', 'my new bike is fast', 'u2', NOW - 2 * DAY);
  add('5', 'the lake the lake the lake', 'u2', NOW - 2 * DAY + 1000);

  it('ranks by BM25 with OR semantics: any term counts, rare terms count more', () => {
    const hits = index.search(terms('sunrise painting'), 10);
    expect(hits.map((h) => index.doc(h.slot).id)).toEqual(['1', '3']);
    expect(index.idf('sunris')).toBeGreaterThan(index.idf('paint'));
    expect(index.search(terms('bike unicorn'), 10).map((h) => index.doc(h.slot).id)).toEqual(['4']);
  });

  it("indexes the speaker's name with the message", () => {
    const hits = index.search(terms('Ana bike'), 10);
    expect(index.doc(hits[0].slot).id).toBe('4');
    expect(hits.length).toBe(4);
  });

  it('filters by channel, author and time; forgets removed messages', () => {
    expect(index.search(terms('lake'), 10, { authorId: 'u1' }).length).toBe(1);
    expect(index.search(terms('lake'), 10, { since: NOW - 3 * DAY }).length).toBe(1);
    expect(index.search(terms('lake'), 10, { channelId: 'other' }).length).toBe(0);
    const other = new LexicalIndex();
    other.add({ id: 'a', text: 'secret llamas', at: NOW, channelId: 'c', authorId: 'u' });
    other.add({ id: 'b', text: 'public llamas', at: NOW, channelId: 'c', authorId: 'u' });
    expect(other.remove('a')).toBe(true);
    expect(other.search(terms('secret llamas'), 10).map((h) => other.doc(h.slot).id)).toEqual([
      'b',
    ]);
    expect(other.size).toBe(1);
  });

  it('finds the neighbouring turns of a message in its channel, nearest first', () => {
    const slot = index.slot('1')!;
    const around = index.neighbours(slot, 2, 30 * 60_000).map((n) => index.doc(n.slot).id);
    expect(around).toEqual(['2']);
  });
});

describe('time expressions', () => {
  const window = (q: string) => {
    const w = timeWindow(q, NOW);
    return (
      w && [
        new Date(w.since).toISOString().slice(0, 10),
        new Date(w.until).toISOString().slice(0, 10),
      ]
    );
  };
  it('maps months, dates, years and relative times to a window before now', () => {
    expect(window('what did Ana say in May?')).toEqual(['2026-05-01', '2026-06-01']);
    expect(window('what happened in December?')).toEqual(['2025-12-01', '2026-01-01']);
    expect(window('plans for 7 May 2023')).toEqual(['2023-05-07', '2023-05-08']);
    expect(window('on March 3rd')).toEqual(['2026-03-03', '2026-03-04']);
    expect(window('in 2024')).toEqual(['2024-01-01', '2025-01-01']);
    expect(window('yesterday')).toEqual(['2026-11-26', '2026-11-27']);
    expect(window('last month')).toEqual(['2026-10-01', '2026-11-01']);
    expect(window('what did she do last week')).toEqual(['2026-11-13', '2026-11-27']);
    expect(window('two months ago')![0] < '2026-10-01').toBe(true);
  });
  it('reads "last Saturday" as the latest Saturday before today', () => {
    // NOW is a Friday.
    expect(window('what did Ana do last Saturday')).toEqual(['2026-11-21', '2026-11-22']);
    expect(window('on Friday')).toEqual(['2026-11-20', '2026-11-21']);
  });
  it('resolves what a message tells against its own time, not the reader’s', () => {
    const sent = Date.UTC(2023, 4, 8, 13, 56); // 1:56 pm on 8 May, 2023
    const told = toldWindow('I went to a support group yesterday', sent)!;
    expect(new Date(told.since).toISOString().slice(0, 10)).toBe('2023-05-07');
    expect(told.until - told.since).toBe(DAY);
    expect(toldWindow('the support group was lovely', sent)).toBeNull();
  });
  it('names no window for "when" questions, or "may" as a verb', () => {
    expect(timeWindow('When did Tom start painting again?', NOW)).toBeNull();
    expect(timeWindow('may I ask what Tom painted', NOW)).toBeNull();
  });
});

describe('when and related words', () => {
  it('tells messages that speak of a time and questions that ask when', () => {
    expect(mentionsTime('I went to a support group yesterday')).toBe(true);
    expect(mentionsTime('ran a charity race last Saturday')).toBe(true);
    expect(mentionsTime('we fly out on the 3rd')).toBe(true);
    expect(mentionsTime('the lake was so quiet')).toBe(false);
    expect(asksWhen('When did Tom start painting again?')).toBe(true);
    expect(asksWhen('What year did Ana move?')).toBe(true);
    expect(asksWhen('What did Ana paint?')).toBe(false);
  });

  it("expands a question's words with their everyday neighbours, never its own", () => {
    const related = relatedTerms(terms('Where did Ana go on vacation?'));
    expect(related).toEqual(expect.arrayContaining(['trip', 'holidai']));
    expect(related).not.toContain('vacat');
    expect(relatedTerms(terms('zyzzyva'))).toEqual([]);
  });

  it('finds the message said in other words, and prefers the one that speaks of a time', () => {
    const index = new LexicalIndex();
    const add = (id: string, text: string) =>
      index.add({ id, text, at: NOW - DAY, channelId: 'c', authorId: 'u', authorName: 'Ana' });
    add('trip', 'just booked a hiking trip to Iceland');
    add('talk', 'haha yes exactly');
    add('then', 'back from the hiking trip to Iceland last week');
    const ids = rankMessages(index, 'Where did Ana go on vacation?', { now: NOW, limit: 3 });
    expect(
      ids
        .map((h) => h.id)
        .slice(0, 2)
        .sort(),
    ).toEqual(['then', 'trip']);
    const when = rankMessages(index, 'When was Ana on vacation?', { now: NOW, limit: 3 });
    expect(when[0].id).toBe('then');
  });
});

describe('names', () => {
  const people = [
    { authorId: '1', name: 'Priya Shah' },
    { authorId: '2', name: 'Will' },
    { authorId: '3', name: 'Al' },
  ];
  it('finds people by first or full name, as a capitalised word in a cased question', () => {
    expect(namedPeople('What did Priya look into for her family?', people)).toEqual(['1']);
    expect(namedPeople("what is priya shah's job", people)).toEqual(['1']);
    expect(namedPeople('What will Priya do?', people)).toEqual(['1']);
    expect(namedPeople('What did Will say?', people)).toEqual(['2']);
    expect(namedPeople('Was it Al?', people)).toEqual([]);
  });
});

describe('rankMessages', () => {
  const index = new LexicalIndex();
  let t = NOW - 200 * DAY;
  const say = (id: string, author: 'u1' | 'u2', text: string, channelId = 'c1') =>
    index.add({
      id,
      text,
      at: (t += 60_000),
      channelId,
      authorId: author,
      authorName: author === 'u1' ? 'Tom' : 'Ana',
    });
  say('p', 'u2', 'did you get the puppy from the shelter in the end?');
  say('a', 'u1', 'we did, her name is Biscuit');
  say('x', 'u2', 'nice weather');
  t += 60 * DAY;
  say('d', 'u2', 'the shelter near me has so many puppies');
  say('m', 'u1', 'my puppy chewed a shoe');
  t += 60 * DAY;
  say('may', 'u2', 'we adopted a kitten from the shelter');

  it("lifts the answer right after the turn holding the question's words", () => {
    const ids = rankMessages(index, "What is the name of Tom's puppy from the shelter?", {
      now: NOW,
      limit: 5,
    }).map((h) => h.id);
    expect(ids.indexOf('a')).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf('a')).toBeLessThan(ids.indexOf('d'));
  });

  it('lifts the named person and the named time softly, never filtering', () => {
    const r = readQuestion(index, 'what did Ana adopt from the shelter in June', NOW);
    expect(r.named).toEqual(['u2']);
    expect(r.terms).toEqual(['ana', 'adopt', 'shelter']);
    expect(r.window).not.toBeNull();
    const ids = rankMessages(index, 'Tom shelter', { now: NOW, limit: 10 }).map((h) => h.id);
    expect(ids).toContain('d');
  });

  it('uses vector similarity as a signal of its own', () => {
    const ids = rankMessages(index, 'canine', {
      now: NOW,
      limit: 3,
      vectorScores: new Map([['m', 0.4]]),
    }).map((h) => h.id);
    expect(ids).toEqual(['m']);
  });
});

describe('rankMessages on months of sessions', () => {
  const index = new LexicalIndex();
  const session = Date.UTC(2023, 4, 8, 13, 56);
  const add = (id: string, author: string, text: string, at: number) =>
    index.add({ id, text, at, channelId: 'c', authorId: author, authorName: author });
  add('told', 'Joelle', 'I went to the support group for new parents yesterday', session);
  add('chat', 'Joelle', 'anyway, what else is new with you?', session + 60_000);
  add('again', 'Joelle', 'anyway, what else is new with you?', session + 30 * DAY);
  add('other', 'Joelle', 'my neighbour runs every morning at six', session + 45 * DAY);
  add('said', 'Joelle', 'I painted the fence on 7 May, it took all day', session + 60 * DAY);

  it('finds what was told of a date as "yesterday", by the date', () => {
    const ids = rankMessages(index, 'What did Joelle do on 7 May 2023?', {
      now: session + 90 * DAY,
      limit: 2,
    }).map((h) => h.id);
    expect(ids.sort()).toEqual(['said', 'told']);
  });

  it('puts a person saying the same words again after everything else', () => {
    const ids = rankMessages(index, 'what is new with Joelle', {
      now: session + 90 * DAY,
      limit: 10,
    }).map((h) => h.id);
    expect(ids.indexOf('chat')).toBeLessThan(ids.indexOf('other'));
    expect(ids.indexOf('other')).toBeGreaterThanOrEqual(0);
    expect(ids.at(-1)).toBe('again');
  });

  it('keeps turns stamped alike in the order their ids were made', () => {
    const line = new LexicalIndex();
    for (const id of ['1002', '1000', '999', '1001']) {
      line.add({ id, text: `turn ${id}`, at: session, channelId: 'c', authorId: 'u' });
    }
    const around = line.neighbours(line.slot('1000')!, 1, DAY).map((n) => line.doc(n.slot).id);
    expect(around.sort()).toEqual(['1001', '999']);
  });
});

describe('typos', () => {
  it('meets a misspelt word at its near spellings', () => {
    const index = new LexicalIndex();
    index.add({
      id: '1',
      text: 'the kubernetes cluster ran out of memory',
      at: NOW,
      channelId: 'c',
      authorId: 'u',
    });
    index.add({ id: '2', text: 'sourdough starter', at: NOW, channelId: 'c', authorId: 'u' });
    expect(rankMessages(index, 'kubernetis', { now: NOW, limit: 5 }).map((h) => h.id)).toEqual([
      '1',
    ]);
    expect(withinEdits('kuberneti', 'kubernet', 1)).toBe(true);
    expect(withinEdits('sourdough', 'kubernet', 2)).toBe(false);
  });

  it('takes a short word nobody used for itself, not for its near spellings', () => {
    const index = new LexicalIndex();
    index.add({ id: '1', text: 'I want a new boat', at: NOW, channelId: 'c', authorId: 'u' });
    index.add({ id: '2', text: 'sent you the photos', at: NOW, channelId: 'c', authorId: 'u' });
    expect(readQuestion(index, 'what went wrong', NOW).terms).toEqual(['went', 'wrong']);
    expect(rankMessages(index, 'what went wrong', { now: NOW, limit: 5 })).toEqual([]);
  });
});
