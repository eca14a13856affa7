import { KeptReads } from './kept-reads';

describe('KeptReads', () => {
  it('reads a key once until a write of it commits', async () => {
    const kept = new KeptReads<number>();
    let reads = 0;
    let stored = 1;
    const read = () => Promise.resolve((reads++, stored));
    expect(await kept.get('a', read)).toBe(1);
    expect(await kept.get('a', read)).toBe(1);
    expect(reads).toBe(1);
    await kept.dropAfter('a', Promise.resolve((stored = 2)));
    expect(await kept.get('a', read)).toBe(2);
    expect(reads).toBe(2);
  });

  it('does not serve a read begun before a write once the write has committed', async () => {
    const kept = new KeptReads<string>();
    let answer!: (v: string) => void;
    const early = kept.get('a', () => new Promise((r) => (answer = r)));
    let commit!: () => void;
    const write = kept.dropAfter('a', new Promise<void>((r) => (commit = r)));
    commit();
    await write;
    answer('before the write');
    expect(await early).toBe('before the write');
    expect(await kept.get('a', () => Promise.resolve('after the write'))).toBe('after the write');
  });

  it('drops a key whose write failed, and keeps no failed read', async () => {
    const kept = new KeptReads<string>();
    await kept.get('a', () => Promise.resolve('old'));
    await expect(kept.dropAfter('a', Promise.reject(new Error('lock')))).rejects.toThrow('lock');
    expect(await kept.get('a', () => Promise.resolve('new'))).toBe('new');
    await expect(kept.get('b', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await kept.get('b', () => Promise.resolve('up'))).toBe('up');
  });

  it('takes what each write gave into the kept read, the writes one at a time', async () => {
    const kept = new KeptReads<number[]>();
    let stored = [1];
    const read = () => Promise.resolve([...stored]);
    await kept.get('a', read);
    await kept.after(
      'a',
      () => Promise.resolve((stored = [1, 2])),
      () => (v) => [...v, 2],
    );
    expect(await kept.get('a', () => Promise.resolve([0]))).toEqual([1, 2]);
    const order: number[] = [];
    let first!: () => void;
    const one = kept.after(
      'a',
      () => new Promise<void>((r) => (first = () => (order.push(3), r()))),
      () => (v) => [...v, 3],
    );
    const two = kept.after(
      'a',
      () => Promise.resolve(void order.push(4)),
      () => (v) => [...v, 4],
    );
    await Promise.resolve();
    first();
    await Promise.all([one, two]);
    expect(order).toEqual([3, 4]);
    expect(await kept.get('a', read)).toEqual([1, 2, 3, 4]);
  });

  it('reads again what another replica may have written: in the background, then at once', async () => {
    let t = 0;
    const kept = new KeptReads<number>(10, 1_000, () => t);
    let stored = 1;
    let reads = 0;
    const read = () => Promise.resolve((reads++, stored));
    expect(await kept.get('a', read)).toBe(1);
    stored = 2; // another replica's write
    t = 400;
    expect(await kept.get('a', read)).toBe(1);
    expect(reads).toBe(1);
    t = 600; // past half: served as kept, read again for the next
    expect(await kept.get('a', read)).toBe(1);
    await Promise.resolve();
    expect(reads).toBe(2);
    expect(await kept.get('a', read)).toBe(2);
    stored = 3;
    t = 1_700; // past the whole age (the refresh began at 600): read before answering
    expect(await kept.get('a', read)).toBe(3);
  });

  it('throws away a background read that a write of the key overlapped', async () => {
    let t = 0;
    const kept = new KeptReads<string>(10, 1_000, () => t);
    await kept.get('a', () => Promise.resolve('v1'));
    t = 600;
    let answer!: (v: string) => void;
    expect(await kept.get('a', () => new Promise((r) => (answer = r)))).toBe('v1');
    await kept.after(
      'a',
      () => Promise.resolve('v2'),
      (w) => () => w,
    );
    answer('read before the write');
    await new Promise((r) => setImmediate(r));
    expect(await kept.get('a', () => Promise.resolve('unused'))).toBe('v2');
  });
});
