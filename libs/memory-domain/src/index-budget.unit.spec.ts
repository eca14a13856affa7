import fc from 'fast-check';
import { overBudget, type HeldIndex } from './index-budget';

describe('overBudget', () => {
  const held = (bytes: number[], used: number[]): HeldIndex[] =>
    bytes.map((b, i) => ({ id: `g${i}`, bytes: b, usedAt: used[i] }));

  it('drops the least recently used until the rest fit', () => {
    // Three guilds of 40 under a budget of 100: the one used longest ago goes.
    expect(overBudget(held([40, 40, 40], [3, 1, 2]), 100, 'g0')).toEqual(['g1']);
    expect(overBudget(held([40, 40, 40], [3, 1, 2]), 120, 'g0')).toEqual([]);
  });

  it('never drops the index in use, even alone over the budget', () => {
    expect(overBudget(held([500, 10], [1, 2]), 100, 'g0')).toEqual(['g1']);
  });

  it('keeps everything without a budget', () => {
    expect(overBudget(held([500, 500], [1, 2]), 0, 'g0')).toEqual([]);
  });

  it('leaves what fits, and drops only older indexes than any it keeps but `keep`', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(1_000), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 3_000 }),
        (bytes, budget) => {
          const h = held(
            bytes,
            bytes.map((_, i) => i),
          );
          const keep = h[h.length - 1].id;
          const gone = new Set(overBudget(h, budget, keep));
          const left = h.filter((x) => !gone.has(x.id));
          const total = left.reduce((s, x) => s + x.bytes, 0);
          expect(gone.has(keep)).toBe(false);
          const others = left.filter((x) => x.id !== keep);
          // Either it fits, or only `keep` is left.
          expect(total <= budget || others.length === 0).toBe(true);
          // Nothing dropped was used later than something kept (other than `keep`).
          const lastGone = Math.max(-1, ...h.filter((x) => gone.has(x.id)).map((x) => x.usedAt));
          expect(others.every((x) => x.usedAt > lastGone)).toBe(true);
        },
      ),
    );
  });
});
