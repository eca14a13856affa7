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
