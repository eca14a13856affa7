import fc from 'fast-check';
import { budgetDay } from './accounting';

describe('budgetDay', () => {
  it('is the UTC date of the instant, in any order of calls (the last day is kept)', () => {
    const instant = fc.integer({ min: -8_640_000_000_000, max: 8_640_000_000_000 });
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (times) => {
        for (const ms of times) expect(budgetDay(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
      }),
    );
  });

  it('turns at midnight UTC', () => {
    const midnight = Date.parse('2026-12-07T00:00:00Z');
    expect(budgetDay(midnight - 1)).toBe('2026-12-06');
    expect(budgetDay(midnight)).toBe('2026-12-07');
    expect(budgetDay(midnight - 1)).toBe('2026-12-06');
  });
});
