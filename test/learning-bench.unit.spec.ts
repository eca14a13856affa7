import { simulate, spearman } from '../bench/learning.bench';

describe('learning bench', () => {
  it('ranks with ties averaged', () => {
    expect(spearman([1, 2, 3], [10, 20, 30])).toBeCloseTo(1);
    expect(spearman([3, 2, 1], [10, 20, 30])).toBeCloseTo(-1);
  });
  it('learns the community tastes per class and resists one brigader', () => {
    const r = simulate('learning-bench');
    const b = simulate('learning-bench', 5);
    for (const v of Object.values(r.perClass)) expect(v).toBeGreaterThanOrEqual(0.8);
    expect(b.brigaderMaxSteps).toBeLessThanOrEqual(5);
  });
});
