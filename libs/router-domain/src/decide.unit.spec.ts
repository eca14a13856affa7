import {
  CANONICAL_DISPOSITIONS,
  gate,
  isMentioned,
  isModelFree,
  messageFeatures,
  preflight,
  followupAbortReason,
  rollFollowup,
  route,
  sampleCandidate,
  scoreDispositions,
  type AgentPersona,
  withoutMention,
} from './index';

const dit: AgentPersona = { id: 'dit', name: 'Dit', discordUserId: '42' };
const msg = (over: Partial<Parameters<typeof preflight>[1]> = {}) => ({
  messageId: '1',
  authorId: '7',
  authorIsBot: false,
  content: 'hello there',
  ...over,
});

describe('preflight', () => {
  it('never answers itself', () => {
    expect(preflight(dit, msg({ authorId: '42' }), { managedChannel: true })).toEqual({
      proceed: false,
      reason: 'self',
    });
    expect(preflight(dit, msg(), { managedChannel: false, fromSelf: true })).toMatchObject({
      proceed: false,
    });
  });

  it('answers other bots only in managed channels', () => {
    expect(preflight(dit, msg({ authorIsBot: true }), { managedChannel: false })).toEqual({
      proceed: false,
      reason: 'bot-outside-managed',
    });
    expect(preflight(dit, msg({ authorIsBot: true }), { managedChannel: true })).toMatchObject({
      proceed: true,
    });
  });

  it('sees mentions by id, by <@id> and by name as a word', () => {
    expect(isMentioned(dit, { content: 'x', mentions: ['42'] })).toBe(true);
    expect(isMentioned(dit, { content: 'hey <@42>' })).toBe(true);
    expect(isMentioned(dit, { content: 'what do you think, dit?' })).toBe(true);
    expect(isMentioned(dit, { content: 'edited the doc' })).toBe(false);
  });

  it('takes the mention and the name used as an address out of what a message asks', () => {
    expect(withoutMention('<@42> where did I say the picnic was?', dit)).toBe(
      'where did I say the picnic was?',
    );
    expect(withoutMention('Dit, where did I say the picnic was?', dit)).toBe(
      'where did I say the picnic was?',
    );
    expect(withoutMention('dit what did we pick?', dit)).toBe('what did we pick?');
    expect(withoutMention('where is the picnic again, Dit?', dit)).toBe(
      'where is the picnic again?',
    );
    // The name as the subject of a sentence is what it is about.
    expect(withoutMention('Dit said the picnic is at noon', dit)).toBe(
      'Dit said the picnic is at noon',
    );
  });
});

describe('route', () => {
  const base = { trigger: 'reactive' as const, agent: dit, content: 'hello', mentioned: false };

  it('replays a logged seed and varies across seeds', () => {
    const chosen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const a = route(CANONICAL_DISPOSITIONS, { ...base, seed: `s${i}` });
      expect(route(CANONICAL_DISPOSITIONS, { ...base, seed: `s${i}` }).chosen).toBe(a.chosen);
      chosen.add(a.chosen);
    }
    expect(chosen.size).toBeGreaterThan(1);
  });

  it('temperature 0 picks the top score', () => {
    const c = [
      { dispositionId: 'a', score: 1 },
      { dispositionId: 'b', score: 3 },
    ];
    expect(sampleCandidate(c, 'x', 0)).toBe('b');
    expect(sampleCandidate([{ dispositionId: 'a', score: 0 }], 'x')).toBeNull();
  });

  it('gates voices outside the persona and model calls when the budget is spent', () => {
    const roast = CANONICAL_DISPOSITIONS.find((d) => d.id === 'roast-back')!;
    const sharpless = { ...dit, voices: ['playful' as const] };
    expect(gate(roast, { ...base, agent: sharpless })).toBe('voice');
    expect(gate(roast, { ...base, budgetFraction: 0 })).toBe('budget');
    const vibing = CANONICAL_DISPOSITIONS.find((d) => d.id === 'vibing')!;
    expect(gate(vibing, { ...base, budgetFraction: 0 })).toBeNull();
  });

  it('a mention with the budget spent still speaks without a model', () => {
    const d = route(CANONICAL_DISPOSITIONS, {
      ...base,
      mentioned: true,
      budgetFraction: 0,
      seed: 'q',
    });
    expect(d.dimensions.outputShape).toBe('react-only');
  });

  it('a mention asking for a skill (dice, poll, thread, pin, restructure) never lands on an emoji', () => {
    // The room favours the react-only disposition as much as it can.
    const agent = { ...dit, weights: { vibing: 50 } };
    const asks = [
      'dit, roll 2d6+1',
      'Dit can you open a poll: pizza or tacos?',
      'dit, start a thread about the trip',
      'dit pin that',
      'dit, please restructure the server: merge #memes into #general',
    ];
    for (const content of asks) {
      for (let i = 0; i < 40; i++) {
        const d = route(CANONICAL_DISPOSITIONS, {
          ...base,
          agent,
          content,
          mentioned: true,
          seed: `a${i}`,
        });
        expect([content, d.dimensions.outputShape]).not.toEqual([content, 'react-only']);
        expect(d.chosen).not.toBe('silent-listen');
      }
    }
    const vibing = CANONICAL_DISPOSITIONS.find((d) => d.id === 'vibing')!;
    const ctx = { ...base, agent, content: 'dit, roll 2d6', mentioned: true };
    expect(gate(vibing, ctx)).toBe('asked-to-act');
    // Not mentioned, a plain chat, or no budget left to act with: the emoji stays possible.
    expect(gate(vibing, { ...ctx, mentioned: false })).toBeNull();
    expect(gate(vibing, { ...ctx, content: 'dit, nice one' })).toBeNull();
    expect(gate(vibing, { ...ctx, budgetFraction: 0 })).toBeNull();
  });

  // The room favours the react-only disposition as much as it can.
  const emojiLover = { ...dit, weights: { vibing: 50 } };
  const vibing = CANONICAL_DISPOSITIONS.find((d) => d.id === 'vibing')!;
  /** Over 60 seeds, a mention of `content` always gets a disposition that posts words. */
  const alwaysInWords = (content: string) => {
    for (let i = 0; i < 60; i++) {
      const d = route(CANONICAL_DISPOSITIONS, {
        ...base,
        agent: emojiLover,
        content,
        mentioned: true,
        seed: `w${i}`,
      });
      expect(isModelFree(CANONICAL_DISPOSITIONS.find((x) => x.id === d.chosen)!)).toBe(false);
    }
    return { ...base, agent: emojiLover, content, mentioned: true };
  };

  it('answers a mention asking what memory holds in words, never with an emoji alone', () => {
    const ctx = alwaysInWords('@Dit do you remember what we decided about the venue');
    expect(gate(vibing, ctx)).toBe('asked-to-recall');
    expect(gate(vibing, { ...ctx, mentioned: false })).toBeNull();
    expect(gate(vibing, { ...ctx, budgetFraction: 0 })).toBeNull();
  });

  it("answers a human's question by name in words; a statement or a bot's question may get an emoji", () => {
    const content = '@Dit what is Dirigent good for?';
    const ctx = alwaysInWords(content);
    expect(gate(vibing, ctx)).toBe('asked-a-question');
    expect(gate(vibing, { ...ctx, content: '@Dit nice one' })).toBeNull();
    expect(gate(vibing, { ...ctx, authorIsBot: true })).toBeNull();
    expect(gate(vibing, { ...ctx, budgetFraction: 0 })).toBeNull();
    // Recorded before the feature existed: replayed as it was decided.
    const old = { ...messageFeatures(content), asks: undefined };
    expect(gate(vibing, { ...ctx, features: old })).toBeNull();
  });
});

describe('the callback-later follow-up bias', () => {
  it('is scheduled by the roast-back disposition and favours the callback hunt when it fires', () => {
    const roast = CANONICAL_DISPOSITIONS.find((d) => d.id === 'roast-back')!;
    expect(roast.selfFollowupHint?.bias).toBe('callback-later');
    const seed = [...Array(100).keys()]
      .map((i) => `s${i}`)
      .find((s) => rollFollowup(roast.selfFollowupHint, { seed: s, now: 0, trigger: 'reactive' }));
    const plan = rollFollowup(roast.selfFollowupHint, { seed: seed!, now: 0, trigger: 'reactive' });
    expect(plan?.bias).toBe('callback-later');
    expect(plan!.dueAt).toBeGreaterThanOrEqual(20 * 60_000);
    const ctx = { trigger: 'self-followup' as const, agent: dit, mentioned: false, content: '' };
    const score = (bias?: 'callback-later') =>
      scoreDispositions(CANONICAL_DISPOSITIONS, { ...ctx, ...(bias ? { bias } : {}) }).find(
        (c) => c.dispositionId === 'callback-from-memory',
      )!.score;
    expect(score('callback-later')).toBeGreaterThan(score());
  });

  it('is not aborted because the talk moved on (that is when it calls back)', () => {
    const since = Array.from({ length: 8 }, (_, i) => ({
      authorId: `u${i}`,
      authorIsBot: false,
      at: i,
    }));
    const input = { botMessageIds: ['b1'], since, now: 3_600_000, movedOnAfter: 6 };
    expect(followupAbortReason(input)).toBe('moved-on');
    expect(followupAbortReason({ ...input, bias: 'callback-later' })).toBeNull();
    expect(
      followupAbortReason({
        ...input,
        bias: 'callback-later',
        since: [...since, { authorId: 'u1', authorIsBot: false, at: 9, replyToMessageId: 'b1' }],
      }),
    ).toBe('human-replied');
  });
});
