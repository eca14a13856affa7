import fc from 'fast-check';
import {
  DEFAULT_SPECULATIVE,
  followupAbortReason,
  rollFollowup,
  speculativeCheckAt,
  speculativeDue,
} from './index';

describe('self-follow-ups', () => {
  const hint = {
    probability: 0.5,
    bias: 'go-deeper' as const,
    windowMs: [30_000, 120_000] as [number, number],
  };

  it('rolls with the seed and lands inside the window', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 2 ** 40 }), (seed, now) => {
        const a = rollFollowup(hint, { seed, now, trigger: 'reactive' });
        expect(rollFollowup(hint, { seed, now, trigger: 'reactive' })).toEqual(a);
        if (a) {
          expect(a.dueAt).toBeGreaterThanOrEqual(now + 30_000);
          expect(a.dueAt).toBeLessThanOrEqual(now + 120_000);
        }
      }),
    );
  });

  it('never follows up a follow-up, and always with probability 1', () => {
    const always = { ...hint, probability: 1 };
    expect(rollFollowup(always, { seed: 'x', now: 0, trigger: 'self-followup' })).toBeNull();
    expect(rollFollowup(always, { seed: 'x', now: 0, trigger: 'reactive' })).not.toBeNull();
    expect(rollFollowup(undefined, { seed: 'x', now: 0, trigger: 'reactive' })).toBeNull();
  });

  it('aborts when a human replied, the talk moved on, or someone is mid-thought', () => {
    const base = { botMessageIds: ['9'], agentUserId: '42', now: 100_000 };
    const human = (at: number, over = {}) => ({ authorId: '7', authorIsBot: false, at, ...over });
    expect(followupAbortReason({ ...base, since: [human(1, { replyToMessageId: '9' })] })).toBe(
      'human-replied',
    );
    expect(followupAbortReason({ ...base, since: [human(1, { mentions: ['42'] })] })).toBe(
      'human-replied',
    );
    expect(followupAbortReason({ ...base, since: [1, 2, 3, 4, 5, 6].map((t) => human(t)) })).toBe(
      'moved-on',
    );
    expect(followupAbortReason({ ...base, since: [human(95_000)] })).toBe('mid-thought');
    expect(followupAbortReason({ ...base, since: [], othersTypingAt: 99_000 })).toBe('mid-thought');
    expect(followupAbortReason({ ...base, since: [human(10_000)] })).toBeNull();
  });
});

describe('speculative trigger', () => {
  const s = { ...DEFAULT_SPECULATIVE, chance: 1 };
  const hour = 3_600_000;

  it('arms at quiet + since-bot and needs a human first', () => {
    expect(speculativeCheckAt({}, s)).toBeNull();
    expect(speculativeCheckAt({ lastHumanAt: 0, lastMessageAt: 0 }, s)).toBe(s.quietMs);
    expect(speculativeCheckAt({ lastHumanAt: 0, lastMessageAt: 0, lastBotTurnAt: 0 }, s)).toBe(
      hour,
    );
  });

  it('fires only when every condition holds', () => {
    const a = { lastHumanAt: 0, lastMessageAt: 0 };
    const ctx = { now: 2 * hour, budgetFraction: 1, seed: 'x' };
    expect(speculativeDue(a, s, ctx)).toEqual({ fire: true });
    expect(speculativeDue(a, { ...s, enabled: false }, ctx)).toMatchObject({ reason: 'disabled' });
    expect(speculativeDue(a, s, { ...ctx, now: 1000 })).toMatchObject({ reason: 'not-quiet' });
    expect(speculativeDue({ ...a, lastBotTurnAt: hour + 1 }, s, ctx)).toMatchObject({
      reason: 'bot-spoke',
    });
    expect(speculativeDue(a, s, { ...ctx, now: 25 * hour })).toMatchObject({ reason: 'inactive' });
    expect(speculativeDue(a, s, { ...ctx, budgetFraction: 0.1 })).toMatchObject({
      reason: 'budget',
    });
    expect(speculativeDue(a, { ...s, chance: 0 }, ctx)).toMatchObject({ reason: 'chance' });
  });
});
