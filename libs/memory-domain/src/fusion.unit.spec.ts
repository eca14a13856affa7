import fc from 'fast-check';
import { reciprocalRankFusion } from './fusion';

const now = Date.UTC(2026, 10, 20);
const day = 86_400_000;
const it_ = (key: string, ageDays = 0) => ({ key, at: now - ageDays * day });

describe('reciprocal rank fusion', () => {
  it('given an item found by two retrievers, when fused, then it outranks items found by one', () => {
    const fused = reciprocalRankFusion(
      [
        [it_('a'), it_('shared')],
        [it_('b'), it_('shared')],
      ],
      { now },
    );
    expect(fused[0].key).toBe('shared');
  });

  it('given equal ranks, when one item is newer, then recency breaks the tie', () => {
    const fused = reciprocalRankFusion([[it_('old', 300)], [it_('new', 0)]], { now });
    expect(fused.map((f) => f.key)).toEqual(['new', 'old']);
  });

  it('given a much better rank, when the item is old, then recency does not overturn it', () => {
    const fused = reciprocalRankFusion(
      [
        [it_('old', 400), it_('x'), it_('y')],
        [it_('old', 400), it_('z'), it_('new', 0)],
      ],
      { now },
    );
    expect(fused[0].key).toBe('old');
  });

  it('weights lists', () => {
    const fused = reciprocalRankFusion([[it_('a')], [it_('b')]], { now, weights: [1, 3] });
    expect(fused[0].key).toBe('b');
  });

  it('returns exactly the union of the inputs, each once, best first', () => {
    const list = fc.array(
      fc.record({
        key: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
        at: fc.integer({ min: 0, max: now }),
      }),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(fc.array(list, { maxLength: 4 }), (lists) => {
        const fused = reciprocalRankFusion(lists, { now });
        const keys = new Set(lists.flat().map((i) => i.key));
        expect(new Set(fused.map((f) => f.key))).toEqual(keys);
        expect(fused).toHaveLength(keys.size);
        for (let i = 1; i < fused.length; i++)
          expect(fused[i - 1].score).toBeGreaterThanOrEqual(fused[i].score);
      }),
    );
  });
});
