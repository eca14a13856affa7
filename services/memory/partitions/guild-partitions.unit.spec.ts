import { guildPartitioner } from './guild-partitions';

describe('guildPartitioner', () => {
  const guilds = Array.from({ length: 400 }, (_, i) =>
    String(1_180_000_000_000_000_000n + BigInt(i * 7919)),
  );

  it('gives a pinned guild its partition and no other guild that partition', () => {
    const of = guildPartitioner(4, ' 42 = 2 ,77=0');
    expect(of('42')).toBe(2);
    expect(of('77')).toBe(0);
    const others = new Set(guilds.map(of));
    expect([...others].sort()).toEqual([1, 3]);
  });

  it('hashes every guild over every partition without pins', () => {
    const of = guildPartitioner(4, '');
    expect(new Set(guilds.map(of)).size).toBe(4);
    expect(guilds.map(of)).toEqual(guilds.map(guildPartitioner(4, '')));
  });

  it('refuses a pin outside the partitions, or pins on every partition', () => {
    expect(() => guildPartitioner(2, '42=2')).toThrow(/partition 2 of 2/);
    expect(() => guildPartitioner(2, '42=0,43=1')).toThrow(/every partition/);
  });
});
