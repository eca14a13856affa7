import { WriteBehind } from './write-behind';

describe('WriteBehind', () => {
  it('writes items handed in together as one batch, and settles each after its write', async () => {
    const batches: number[][] = [];
    const buffer = new WriteBehind<number>(
      async (items) => {
        batches.push(items);
      },
      { maxBatch: 3, maxConcurrent: 1 },
    );
    await Promise.all([1, 2, 3, 4, 5].map((n) => buffer.add(n)));
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(buffer.pending).toBe(0);
  });

  it('retries a failed batch item by item: only the bad item fails', async () => {
    const written: number[] = [];
    const buffer = new WriteBehind<number>(
      async (items) => {
        if (items.includes(13)) throw new Error('unlucky');
        written.push(...items);
      },
      { maxBatch: 10, maxConcurrent: 2 },
    );
    const results = await Promise.allSettled([12, 13, 14].map((n) => buffer.add(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('unlucky');
    expect(written.sort()).toEqual([12, 14]);
  });

  it('does not settle a caller before its batch is written', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const buffer = new WriteBehind<string>(() => gate, { maxBatch: 5, maxConcurrent: 1 });
    let settled = false;
    const done = buffer.add('a').then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    release();
    await done;
    expect(settled).toBe(true);
  });

  it('gathers what arrives while a batch is written into the next, started beside it only when full', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const buffer = new WriteBehind<number>(
      async (items) => {
        batches.push(items);
        await gate;
      },
      { maxBatch: 3, maxConcurrent: 2 },
    );
    const turn = () => new Promise((r) => setImmediate(r));
    const added = [buffer.add(1)];
    await turn();
    // One at a time, a turn apart: no batch of one or two starts beside the running one.
    for (const n of [2, 3]) {
      added.push(buffer.add(n));
      await turn();
    }
    expect(batches).toEqual([[1]]);
    added.push(buffer.add(4));
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    added.push(buffer.add(5));
    await turn();
    release();
    await Promise.all(added);
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
  });
});
