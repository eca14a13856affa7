import { KeyedQueue } from '@dirigent/messaging';
import {
  all,
  any,
  evaluate,
  event,
  occurrence,
  predicate,
  Reactor,
  subjectMatches,
  timer,
  wants,
  type Occurrence,
  type Outcome,
} from './index';

const due = timer({ subject: 'dirigent.timer.fired.svc.nudge', type: 'svc.nudge-due' });
const fired = (over: Partial<Occurrence> = {}): Occurrence => ({
  kind: 'timer',
  id: 't-1',
  subject: due.subject,
  type: due.type,
  data: { channelId: 'c' },
  ...over,
});
const message = (over: Partial<Occurrence> = {}): Occurrence => ({
  kind: 'event',
  id: 'e-1',
  subject: 'dirigent.discord.evt.1.2.message.created',
  type: 'message.created',
  data: {},
  ...over,
});

describe('triggers', () => {
  it('matches subjects as NATS does', () => {
    expect(subjectMatches('a.*.c', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.*.c', 'a.b.d')).toBe(false);
    expect(subjectMatches('a.>', 'a.b.c')).toBe(true);
    expect(subjectMatches('a.>', 'a')).toBe(false);
    expect(subjectMatches('a.b', 'a.b.c')).toBe(false);
  });

  it('a timer wants only its own firing; an event its subject and type', () => {
    expect(wants(due, fired())).toBe(true);
    expect(wants(due, fired({ type: 'other' }))).toBe(false);
    expect(wants(due, message())).toBe(false);
    const created = event({ subject: 'dirigent.discord.evt.*.*.message.created' });
    expect(wants(created, message())).toBe(true);
    expect(wants(created, message({ subject: 'dirigent.discord.evt.1.2.typing.started' }))).toBe(
      false,
    );
    expect(wants(event({ type: 'message.created' }), fired({ type: 'message.created' }))).toBe(
      false,
    );
  });

  it('a predicate reads the snapshot when an event arrives; timers select, predicates gate', () => {
    const busy = predicate('busy', (s: { n: number }) => s.n > 2);
    expect(wants(busy, message())).toBe(true);
    expect(wants(busy, fired())).toBe(false);
    expect(evaluate(busy, { n: 3 }, message())).toEqual({ fire: true, via: ['busy'] });
    expect(evaluate(busy, { n: 1 }, message())).toEqual({ fire: false, reason: 'busy' });
    // A composite of a timer and predicates is wanted by the timer alone.
    const t = all(due, all(busy));
    expect(wants(t, fired())).toBe(true);
    expect(wants(t, message())).toBe(false);
  });

  it('all: every member, the first that fails is the reason; any: the first that holds', () => {
    type S = { quietMs: number; budget: number; roll: number };
    const t = all<S>(
      due,
      predicate('quiet', (s) => s.quietMs >= 60_000),
      predicate('budget', (s) => s.budget >= 0.3),
      predicate('chance', (s) => s.roll < 0.2),
    );
    const ok = { quietMs: 90_000, budget: 0.5, roll: 0.1 };
    expect(evaluate(t, ok, fired())).toEqual({
      fire: true,
      via: ['timer', 'quiet', 'budget', 'chance'],
    });
    expect(evaluate(t, { ...ok, budget: 0.1, roll: 0.9 }, fired())).toEqual({
      fire: false,
      reason: 'budget',
    });
    expect(evaluate(t, ok, message())).toEqual({ fire: false, reason: 'timer' });

    const either = any<S>(
      due,
      predicate('quiet', (s) => s.quietMs >= 60_000),
    );
    expect(wants(either, message())).toBe(true);
    expect(evaluate(either, ok, message())).toEqual({ fire: true, via: ['quiet'] });
    expect(evaluate(either, { ...ok, quietMs: 0 }, message())).toEqual({
      fire: false,
      reason: 'timer|quiet',
    });
  });
});

describe('Reactor', () => {
  it('runs the jobs that want an occurrence, with their lineage and snapshot', async () => {
    const outcomes: Outcome[] = [];
    const reactor = new Reactor({ log: (o) => outcomes.push(o) });
    const runs: unknown[] = [];
    reactor.job({
      name: 'nudge',
      trigger: all(
        due,
        predicate('quiet', (s: { quiet: boolean }) => s.quiet),
      ),
      parse: (d) => d as { channelId: string },
      snapshot: (d) => ({ quiet: d.channelId === 'c' }),
      run: (d, f) => runs.push({ d, ...f }),
    });
    reactor.job({
      name: 'count',
      trigger: event({ type: 'message.created' }),
      run: (_d, f) => runs.push(f.lineage),
    });

    expect(await reactor.offer(fired({ parentId: 'decision-1' }))).toEqual([
      {
        job: 'nudge',
        fired: true,
        lineage: {
          job: 'nudge',
          trigger: 'all',
          causeId: 't-1',
          parentId: 'decision-1',
          via: ['timer', 'quiet'],
        },
      },
    ]);
    expect(runs[0]).toMatchObject({ d: { channelId: 'c' }, snapshot: { quiet: true } });

    expect(await reactor.offer(fired({ id: 't-2', data: { channelId: 'x' } }))).toEqual([
      { job: 'nudge', fired: false, reason: 'quiet', causeId: 't-2' },
    ]);
    await reactor.offer(message());
    expect(runs[1]).toEqual({ job: 'count', trigger: 'event', causeId: 'e-1' });
    expect(await reactor.offer(fired({ type: 'unknown' }))).toEqual([]);
    expect(outcomes.map((o) => o.fired)).toEqual([true, false, true]);
  });

  it('a job’s bad input throws before anything runs; a name is declared once', async () => {
    const reactor = new Reactor();
    const run = jest.fn();
    reactor.job({
      name: 'strict',
      trigger: due,
      parse: () => {
        throw new Error('invalid');
      },
      run,
    });
    await expect(reactor.offer(fired())).rejects.toThrow('invalid');
    expect(run).not.toHaveBeenCalled();
    expect(() => reactor.job({ name: 'strict', trigger: due, run })).toThrow('declared twice');
    await expect(reactor.arm(due, 'k', 0, {})).rejects.toThrow('no timers');
  });

  it('evaluates and runs a lane’s occurrences one at a time, in order', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const reactor = new Reactor({ lanes: new KeyedQueue() });
    reactor.job({
      name: 'laned',
      trigger: due,
      lane: (d: { channelId: string }) => d.channelId,
      snapshot: (_d, o) => void order.push(`snapshot ${o.id}`),
      run: async (_d, f) => {
        order.push(`run ${f.lineage.causeId}`);
        if (f.lineage.causeId === 't-1') await gate;
      },
    });
    const first = reactor.offer(fired());
    const second = reactor.offer(fired({ id: 't-2' }));
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['snapshot t-1', 'run t-1']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['snapshot t-1', 'run t-1', 'snapshot t-2', 'run t-2']);
  });

  it('builds an occurrence from an envelope, its causation as the parent', () => {
    expect(
      occurrence('timer', due.subject, {
        id: 'env-1',
        type: due.type,
        data: { a: 1 },
        causationId: 'd-9',
      }),
    ).toEqual({
      kind: 'timer',
      id: 'env-1',
      subject: due.subject,
      type: due.type,
      data: { a: 1 },
      parentId: 'd-9',
    });
  });
});
