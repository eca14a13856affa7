import fc from 'fast-check';
import { compareSnowflakes, laterSnowflake } from './rules';

describe('snowflake order', () => {
  it('orders by numeric value', () => {
    expect(compareSnowflakes('99', '100')).toBe(-1);
    expect(compareSnowflakes('1234567890123456789', '1234567890123456788')).toBe(1);
    expect(compareSnowflakes('5', '5')).toBe(0);
  });

  it('agrees with BigInt over any two snowflakes', () => {
    const snowflake = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
    fc.assert(
      fc.property(snowflake, snowflake, (a, b) => {
        const x = BigInt(a);
        const y = BigInt(b);
        expect(compareSnowflakes(a, b)).toBe(x < y ? -1 : x > y ? 1 : 0);
      }),
    );
  });

  it('keeps the later of two, and the one when there is no other', () => {
    expect(laterSnowflake('100', '99')).toBe('100');
    expect(laterSnowflake('99', '100')).toBe('100');
    expect(laterSnowflake('7', undefined)).toBe('7');
  });
});
