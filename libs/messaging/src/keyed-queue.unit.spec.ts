import { KeyedQueue } from './keyed-queue';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KeyedQueue', () => {
  it('runs one key in submission order and other keys alongside', async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const task = (name: string, ms: number) => () =>
      tick(ms).then(() => {
        log.push(name);
      });
    await Promise.all([
      q.run('a', task('a1', 20)),
      q.run('a', task('a2', 1)),
      q.run('b', task('b1', 5)),
    ]);
    expect(log).toEqual(['b1', 'a1', 'a2']);
  });

  it('keeps going after a failed task', async () => {
    const q = new KeyedQueue();
    const failed = q.run('a', () => Promise.reject(new Error('boom')));
    const next = q.run('a', async () => 'ok');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });
});

describe('KeyedQueue with a limit', () => {
  it('runs at most `limit` keys at once; tasks waiting for a busy key hold no place', async () => {
    const q = new KeyedQueue(2);
    let release!: () => void;
    const stuck = new Promise<void>((r) => (release = r));
    const log: string[] = [];
    // Key a is stuck, with many more tasks of its own queued behind it.
    const a = [q.run('a', () => stuck), ...Array.from({ length: 5 }, () => q.run('a', tick0))];
    // The other place serves the other keys, one after another, while a waits.
    await Promise.all(
      ['b', 'c', 'd'].map((k) =>
        q.run(k, async () => {
          log.push(`${k} start`);
          await tick(1);
          log.push(`${k} end`);
        }),
      ),
    );
    expect(log).toEqual(['b start', 'b end', 'c start', 'c end', 'd start', 'd end']);
    release();
    await Promise.all(a);
    expect(q.size).toBe(0);
  });

  it('frees the place of a failed task', async () => {
    const q = new KeyedQueue(1);
    await expect(q.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(q.run('b', async () => 'ok')).resolves.toBe('ok');
  });
});

const tick0 = () => tick(0);
