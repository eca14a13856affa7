import {
  contextClass,
  decayed,
  effectiveWeight,
  effectiveWeights,
  foldSteps,
  memberSignal,
  stepAdjustment,
  strongerSignal,
} from './learning';

const learning = { enabled: true, rate: 0.05, bounds: [0.5, 2] as [number, number] };

describe('learning per community', () => {
  it('classes the room from its rate, people and debate', () => {
    expect(contextClass({ room: { ratePerMin: 0.2, humansActive: 1, botRun: 0 } })).toBe('lull');
    expect(contextClass({ room: { ratePerMin: 2, humansActive: 2, botRun: 0 } })).toBe('casual');
    expect(contextClass({ room: { ratePerMin: 8, humansActive: 4, botRun: 0 } })).toBe('busy');
    expect(
      contextClass({
        room: { ratePerMin: 3, humansActive: 2, botRun: 0 },
        message: { debate: true } as never,
      }),
    ).toBe('heated');
    expect(contextClass({})).toBe('lull');
  });

  it('steps by rate within the bounds', () => {
    expect(stepAdjustment(1, 0, 'positive', learning)).toEqual({ adjustment: 0.05, delta: 0.05 });
    expect(stepAdjustment(1.98, 0, 'positive', learning)).toEqual({
      adjustment: 0.02,
      delta: 0.02,
    });
    expect(stepAdjustment(2, 0, 'positive', learning)).toEqual({ adjustment: 0, delta: 0 });
  });

  it('never pulls an admin weight outside the bounds in, one step toward them at most', () => {
    const down = stepAdjustment(0.001, 0, 'negative', learning);
    expect(down).toEqual({ adjustment: 0, delta: 0 });
    expect(effectiveWeight(0.001, down.adjustment, learning.bounds)).toBe(0.001);
    const up = stepAdjustment(0.001, 0, 'positive', learning);
    expect(effectiveWeight(0.001, up.adjustment, learning.bounds)).toBe(0.051);
    // Above the bounds: a 👍 cannot push it further out.
    expect(stepAdjustment(3, 0, 'positive', learning).delta).toBe(0);
    expect(effectiveWeight(3, -0.05, learning.bounds)).toBe(2.95);
  });

  it('freezes when learning is off', () => {
    expect(stepAdjustment(1, 0.1, 'positive', { ...learning, enabled: false })).toEqual({
      adjustment: 0.1,
      delta: 0,
    });
  });

  it('decays toward 0 with the half-life', () => {
    expect(decayed(0.2, 3_600_000, 3_600_000)).toBe(0.1);
    expect(decayed(0.2, 3_600_000, 0)).toBe(0.2);
    expect(decayed(-0.2, 7_200_000, 3_600_000)).toBe(-0.05);
  });

  it('keeps the strongest signal of a member', () => {
    expect(strongerSignal(null, 'reaction')).toBe(true);
    expect(strongerSignal('reply', 'reaction')).toBe(false);
    expect(strongerSignal('reaction', 'rebuke')).toBe(true);
  });

  it('effective weights equal the baseline when nothing is learned', () => {
    expect(effectiveWeights({ b: 0.001, a: 1.5 }, {}, learning.bounds)).toEqual({
      a: 1.5,
      b: 0.001,
    });
    expect(effectiveWeights({ a: 1 }, { c: 0.1 }, learning.bounds)).toEqual({ a: 1, c: 1.1 });
  });

  it('rebuilds adjustments from their events: the last per key wins', () => {
    const s = { guildId: 'g', agentId: 'dit', contextClass: 'lull' as const, dispositionId: 'x' };
    const m = foldSteps([
      { ...s, delta: 0.05, adjustment: 0.05, at: 1 },
      { ...s, delta: 0.05, adjustment: 0.1, at: 2 },
      { ...s, guildId: 'h', delta: -0.05, adjustment: -0.05, at: 3 },
    ]);
    expect(m.get('g/dit/lull/x')).toEqual({ adjustment: 0.1, at: 2 });
    expect(m.get('h/dit/lull/x')).toEqual({ adjustment: -0.05, at: 3 });
  });
});

describe("a member's one signal per message", () => {
  const base = { today: 0, dailyCap: 3, baseline: 1, adjustment: 0, learning };
  const add = (emoji: string, polarity: 'positive' | 'negative' = 'positive') =>
    ({ type: 'add', kind: 'reaction', polarity, emoji }) as const;

  it('counts ten emojis as one step and withdraws with the last one removed', () => {
    let r = memberSignal({ ...base, current: null, input: add('👍') })!;
    expect(r.delta).toBe(0.05);
    for (const e of ['🔥', '😂', '❤️']) {
      r = memberSignal({ ...base, adjustment: r.adjustment, current: r.row, input: add(e) })!;
      expect(r.delta).toBe(0);
    }
    for (const e of ['👍', '🔥', '😂']) {
      r = memberSignal({
        ...base,
        adjustment: r.adjustment,
        current: r.row,
        input: { type: 'remove', emoji: e },
      })!;
      expect(r.delta).toBe(0);
    }
    r = memberSignal({
      ...base,
      adjustment: r.adjustment,
      current: r.row,
      input: { type: 'remove', emoji: '❤️' },
    })!;
    expect([r.delta, r.adjustment, r.row.withdrawn]).toEqual([-0.05, 0, true]);
  });

  it('lets a rebuke overturn a reaction, never a reaction a reply', () => {
    const first = memberSignal({ ...base, current: null, input: add('👍') })!;
    const rebuke = memberSignal({
      ...base,
      adjustment: first.adjustment,
      current: first.row,
      input: { type: 'add', kind: 'rebuke', polarity: 'negative' },
    })!;
    expect([rebuke.delta, rebuke.adjustment]).toEqual([-0.1, -0.05]);
    const after = memberSignal({
      ...base,
      adjustment: rebuke.adjustment,
      current: rebuke.row,
      input: add('👍'),
    })!;
    expect(after.delta).toBe(0);
  });

  it("stops at the member's daily cap; frozen learning keeps the row and moves nothing", () => {
    expect(memberSignal({ ...base, today: 3, current: null, input: add('👍') })).toBeNull();
    const frozen = memberSignal({
      ...base,
      learning: { ...learning, enabled: false },
      current: null,
      input: add('👍'),
    })!;
    expect([frozen.delta, frozen.adjustment]).toEqual([0, 0]);
  });
});
