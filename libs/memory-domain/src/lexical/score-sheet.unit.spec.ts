import fc from 'fast-check';
import { LexicalIndex } from './bm25';
import { TopK } from './top-k';

const WORDS = ['lisbon', 'dog', 'paint', 'coffe', 'build', 'broken', 'game', 'mess', 'lunch'];

/** An index of random messages over a few words, some of them removed again. */
function indexOf(docs: { words: number[]; channel: number }[], removed: number[]): LexicalIndex {
  const index = new LexicalIndex();
  docs.forEach((d, i) =>
    index.add({
      id: String(1000 + i),
      text: d.words.map((w) => WORDS[w]).join(' '),
      at: 1_000 + i,
      channelId: `c${d.channel}`,
      authorId: 'u',
    }),
  );
  for (const i of removed) index.remove(String(1000 + i));
  return index;
}

const docs = fc.array(
  fc.record({
    words: fc.array(fc.nat(WORDS.length - 1), { minLength: 1, maxLength: 6 }),
    channel: fc.nat(3),
  }),
  { minLength: 1, maxLength: 80 },
);
const query = fc.dictionary(fc.constantFrom(...WORDS), fc.constantFrom(0.5, 1, 2), {
  maxKeys: 4,
});

describe('LexicalIndex score sheets', () => {
  it('adds a second round to the first: the same hits as one search with both weights', () => {
    fc.assert(
      fc.property(
        docs,
        fc.array(fc.nat(79)),
        query,
        query,
        fc.integer({ min: 1, max: 20 }),
        (ds, removed, first, added, limit) => {
          const index = indexOf(ds, removed);
          const both = new Map<string, number>(Object.entries(first));
          for (const [t, w] of Object.entries(added)) both.set(t, (both.get(t) ?? 0) + w);
          const filter = { hiddenChannelIds: new Set(['c3']) };

          const sheet = index.score(new Map(Object.entries(first)));
          const firstHits = index.top(sheet, limit, filter);
          index.score(new Map(Object.entries(added)), sheet);
          const secondHits = index.top(sheet, limit, filter);
          index.release(sheet);

          expect(firstHits).toEqual(index.search(new Map(Object.entries(first)), limit, filter));
          const once = index.search(both, limit, filter);
          const every = new Map(index.search(both, 1000, filter).map((h) => [h.slot, h.score]));
          expect(secondHits).toHaveLength(once.length);
          // Two rounds add in another order than one: equal scores can differ in the last bit
          // and a tie fall either way, so each hit is checked against its own score.
          secondHits.forEach((h, i) => {
            expect(h.score).toBeCloseTo(once[i].score, 9);
            expect(every.get(h.slot)).toBeCloseTo(h.score, 9);
          });
        },
      ),
    );
  });

  it('lends its buffer to one sheet at a time and leaves it clear', () => {
    const index = indexOf(
      [
        { words: [0, 1], channel: 0 },
        { words: [1, 2], channel: 0 },
      ],
      [],
    );
    const held = index.score(['dog']);
    // A search in the same turn gets a buffer of its own and leaves the held one as it was.
    expect(index.search(['dog'], 5).map((h) => h.slot)).toEqual([0, 1]);
    expect(index.top(held, 5).map((h) => h.slot)).toEqual([0, 1]);
    index.release(held);
    const next = index.score(['lisbon']);
    expect(next.scores).toBe(held.scores);
    expect(index.top(next, 5).map((h) => h.slot)).toEqual([0]);
    index.release(next);
  });
});

describe('TopK', () => {
  it('keeps the k best and names the score an offer must beat', () => {
    const best = new TopK(2);
    expect(best.floor).toBe(-Infinity);
    best.offer(1, 0.5);
    best.offer(2, 0.9);
    expect(best.floor).toBe(0.5);
    best.offer(3, 0.5); // a tie with the floor is not kept
    best.offer(4, 0.7);
    expect(best.floor).toBe(0.7);
    expect(best.sorted()).toEqual([
      { slot: 2, score: 0.9 },
      { slot: 4, score: 0.7 },
    ]);
  });
});
