import { KeyedCoalescer } from './coalesce';

describe('KeyedCoalescer', () => {
  it('runs once per key at a time and once more for announcements made meanwhile', async () => {
    const runs: string[] = [];
    const gates: (() => void)[] = [];
    const idle = () => new Promise((r) => setImmediate(r));
    const c = new KeyedCoalescer(async (key) => {
      runs.push(key);
      await new Promise<void>((r) => gates.push(r));
    });
    c.announce('a');
    c.announce('b');
    c.announce('a');
    c.announce('a');
    await idle();
    expect(runs).toEqual(['a', 'b']);
    gates.shift()!(); // a's first run ends: one more for the two announcements
    await idle();
    expect(runs).toEqual(['a', 'b', 'a']);
    gates.shift()!();
    gates.shift()!();
    await idle();
    expect(runs).toEqual(['a', 'b', 'a']);
    c.announce('a');
    await idle();
    expect(runs).toEqual(['a', 'b', 'a', 'a']);
    gates.shift()!();
  });

  it('reports a failed run and keeps serving the key', async () => {
    const errors: string[] = [];
    let calls = 0;
    const c = new KeyedCoalescer(
      async () => {
        calls++;
        if (calls === 1) throw new Error('boom');
      },
      (key, e) => errors.push(`${key}: ${e.message}`),
    );
    c.announce('k');
    await new Promise((r) => setImmediate(r));
    c.announce('k');
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual(['k: boom']);
    expect(calls).toBe(2);
  });
});
