import {
  beatAllowance,
  CANONICAL_DISPOSITIONS,
  gate,
  messageFeatures,
  presentUsers,
  roomSignals,
  route,
  scoreDispositions,
  type AgentPersona,
  type RouteContext,
} from './index';

const dit: AgentPersona = { id: 'dit', name: 'Dit', discordUserId: '42' };
const byId = (id: string) => CANONICAL_DISPOSITIONS.find((d) => d.id === id)!;
const score = (ctx: RouteContext, id: string) =>
  scoreDispositions(CANONICAL_DISPOSITIONS, ctx).find((c) => c.dispositionId === id)!.score;

describe('reading the room', () => {
  const now = 10 * 60_000 + 1_000_000;

  it('measures the rolling rate, the humans active and the bots’ run since a human', () => {
    const recent = [
      { authorId: 'old', authorIsBot: false, at: now - 20 * 60_000 },
      { authorId: 'h1', authorIsBot: false, at: now - 8 * 60_000 },
      { authorId: 'h2', authorIsBot: false, at: now - 60_000 },
      { authorId: 'b1', authorIsBot: true, at: now - 30_000 },
      { authorId: 'b2', authorIsBot: true, at: now - 10_000 },
    ];
    expect(roomSignals(recent, now)).toEqual({ ratePerMin: 0.6, humansActive: 2, botRun: 2 });
    expect(roomSignals([], now)).toEqual({ ratePerMin: 0, humansActive: 0, botRun: 0 });
  });

  it('lists present users once, sorted, without the agents', () => {
    expect(presentUsers(['9', '3', '42'], ['3', '5'], new Set(['42']))).toEqual(['3', '5', '9']);
    expect(presentUsers(['1', '2', '3'], [], new Set(), 2)).toEqual(['1', '2']);
  });

  it('reads message features', () => {
    const text = 'lol remember when you were wrong?';
    const f = messageFeatures(text, { addressedToOther: true });
    expect(f).toMatchObject({ question: true, callback: true, debate: true, banter: true });
    expect(f.addressedToOther).toBe(true);
    expect(f.length).toBe(text.length);
  });

  it('tells a question to memory from a callback or a plain question', () => {
    for (const asks of [
      '<@42> do you remember what we decided about the venue',
      'dit, what did we decide about pizza?',
      'remind me what Ada picked',
      'can anyone recall when the raid starts?',
      'remember what we said about the trip?',
      'Dit, where did I say the picnic was?',
      'Clio, where is the picnic again?',
      'when did we agree to meet?',
    ])
      expect([asks, messageFeatures(asks).recall]).toEqual([asks, true]);
    for (const not of [
      'I remember that gig, lol',
      'what do you think about pizza?',
      'can you do it again?',
      'remember to bring snacks',
      'where did you go on holiday?',
      'what are we doing again tomorrow',
    ])
      expect([not, messageFeatures(not).recall]).toEqual([not, false]);
  });

  it('leaves a message addressed to someone else to them, unless it names this agent', () => {
    const base = {
      trigger: 'reactive' as const,
      agent: dit,
      features: messageFeatures('ada, what do you think?', { addressedToOther: true }),
    };
    expect(gate(byId('quick-react'), { ...base, mentioned: false })).toBe('addressed-to-other');
    expect(gate(byId('vibing'), { ...base, mentioned: false })).toBeNull();
    expect(gate(byId('quick-react'), { ...base, mentioned: true })).toBeNull();
  });

  it('holds back once three bot messages followed the last human one', () => {
    const ctx = {
      trigger: 'reactive' as const,
      agent: dit,
      mentioned: false,
      room: { ratePerMin: 2, humansActive: 1, botRun: 3 },
    };
    expect(gate(byId('quick-react'), ctx)).toBe('bot-run');
    expect(gate(byId('quick-react'), { ...ctx, mentioned: true })).toBeNull();
    const d = route(CANONICAL_DISPOSITIONS, { ...ctx, content: 'hm', seed: 's' });
    expect(['silent', 'react-only']).toContain(d.dimensions.outputShape);
    expect(beatAllowance(ctx.room)).toBe(1);
    expect(beatAllowance({ ...ctx.room, botRun: 1 })).toBe(2);
    // Never a run of more than MAX_BOT_RUN bot messages without a human one, bursts included.
    expect(beatAllowance({ ...ctx.room, botRun: 0 })).toBe(3);
    expect(beatAllowance(undefined)).toBe(3);
  });

  it('boosts a callback by what memory holds, not by the word "remember"', () => {
    const ctx = {
      trigger: 'reactive' as const,
      agent: dit,
      mentioned: true,
      content: 'do you remember the pizza thing',
    };
    const empty = score({ ...ctx, memory: { hits: 0 } }, 'callback-from-memory');
    const full = score({ ...ctx, memory: { hits: 3 } }, 'callback-from-memory');
    const unknown = score(ctx, 'callback-from-memory');
    expect(full).toBeGreaterThan(unknown);
    expect(unknown).toBeGreaterThan(empty);
    // Material in memory makes a callback likelier even without the word.
    const plain = { ...ctx, content: 'the pizza thing' };
    expect(score({ ...plain, memory: { hits: 2 } }, 'callback-from-memory')).toBeGreaterThan(
      score({ ...plain, memory: { hits: 0 } }, 'callback-from-memory'),
    );
  });

  it('says less in a busy channel and more in a lull', () => {
    const ctx = { trigger: 'reactive' as const, agent: dit, mentioned: false, content: 'hm ok' };
    const busy = { ...ctx, room: { ratePerMin: 12, humansActive: 4, botRun: 0 } };
    const lull = { ...ctx, room: { ratePerMin: 0.2, humansActive: 1, botRun: 0 } };
    expect(score(busy, 'silent-listen')).toBeGreaterThan(score(lull, 'silent-listen'));
    expect(score(lull, 'settle-debate')).toBeGreaterThan(score(busy, 'settle-debate'));
  });

  it('favours the observational voices late at night', () => {
    const ctx = { trigger: 'speculative' as const, agent: dit, mentioned: false };
    expect(score({ ...ctx, hour: 2 }, 'late-night-musing')).toBeGreaterThan(
      score({ ...ctx, hour: 14 }, 'late-night-musing'),
    );
  });
});
