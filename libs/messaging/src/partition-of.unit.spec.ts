import { partitionOf } from './partition-of';

describe('partitionOf', () => {
  it('puts every channel in partition 0 when there is one partition', () => {
    expect(partitionOf('1180000000000000001', 1)).toBe(0);
  });

  it('is the same for the same id and within range', () => {
    for (let i = 0; i < 200; i++) {
      const id = String(1180000000000000000n + BigInt(i));
      const p = partitionOf(id, 6);
      expect(p).toBe(partitionOf(id, 6));
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(6);
    }
  });

  it('spreads consecutive snowflakes over all partitions', () => {
    const counts = new Array(6).fill(0) as number[];
    for (let i = 0; i < 600; i++)
      counts[partitionOf(String(1180000000000000000n + BigInt(i)), 6)]++;
    for (const c of counts) expect(c).toBeGreaterThan(50);
  });

  it('refuses a partition count that is not a positive integer', () => {
    expect(() => partitionOf('1', 0)).toThrow(/positive integer/);
    expect(() => partitionOf('1', 1.5)).toThrow(/positive integer/);
  });
});
