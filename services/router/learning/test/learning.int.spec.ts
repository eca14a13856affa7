import { Durables, Streams, Subjects } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { startRouterStack, type RouterStack } from '../../test/harness';
import { DIT_YAML, learningKit } from './kit';

/**
 * Learning per community through NATS and Postgres: a member's signals on a message are
 * one step, removals withdraw, bots and over-cap members count nothing, an admin weight
 * outside the bounds is not pulled in, guilds never move each other, frozen moves nothing,
 * and every step is an event whose replay rebuilds the adjustments.
 */
describe('router: learning per community', () => {
  let s: RouterStack;
  const D = 'factual-recall';

  const { ok, steps, turn, react, idle } = learningKit(() => s);
  const signals = async (guildId: string) =>
    (await ok(Subjects.admin.learningGet, { guildId, agentId: 'dit' })).signals as number;
  const adjustment = async (guildId: string, cls: string) => {
    const r = await ok(Subjects.admin.learningGet, { guildId, agentId: 'dit' });
    return r.adjustments.find((a: any) => a.contextClass === cls && a.dispositionId === D);
  };
  /**
   * Reacts until the first signal on the message is counted (the origin may lag), then waits
   * until the router handled every reaction sent meanwhile (a late one would land after the
   * test's next event).
   */
  const firstStep = async (g: string, t: { channel: string; messageId: string }, user: string) => {
    await waitFor(async () => {
      await react(g, t.channel, t.messageId, user, '👍');
      return steps(g).some((e) => e.cause.messageId === t.messageId && e.cause.userId === user);
    }, 30_000);
    await waitFor(() => idle(Streams.discordEvents, Durables.routerDiscordEvents), 30_000);
  };

  beforeAll(async () => {
    s = await startRouterStack(DIT_YAML, { DIRIGENT_LEARNING_DAILY_CAP: '3' });
    s.upstream.behave = () => ({ kind: 'ok', text: 'forty-two' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('records the context class and the effective weights on the decision', async () => {
    const g = snowflake();
    const { d } = await turn(g);
    expect(d.inputs!.contextClass).toBe('lull');
    const r = await ok(Subjects.router.replay, { decisionId: d.decisionId });
    expect(r.identical).toBe(true);
  });

  it("takes a member's ten emojis as one step, three members as three", async () => {
    const g = snowflake();
    const t = await turn(g);
    const [a, b, c] = [snowflake(), snowflake(), snowflake()];
    await firstStep(g, t, a);
    for (const e of ['🔥', '😂', '❤️', '🎉', '💯', '👏', '🙌', '😍', '⭐']) {
      await react(g, t.channel, t.messageId, a, e);
    }
    await react(g, t.channel, t.messageId, b, '👍');
    await react(g, t.channel, t.messageId, c, '😂');
    await waitFor(() => steps(g).length === 3, 30_000);
    const cls = t.d.inputs!.contextClass!;
    expect((await adjustment(g, cls)).adjustment).toBeCloseTo(0.3, 6);
    // b's and c's reactions are handled concurrently: one step each, in either order.
    const [first, ...rest] = steps(g).map((e) => e.cause.userId);
    expect([first, rest.sort()]).toEqual([a, [b, c].sort()]);
    // The next decision in that mood scores with baseline + adjustment, and replays exactly.
    const next = await turn(g);
    expect(next.d.inputs!.agent.weights).toEqual({ [D]: 1.3 });
    expect((await ok(Subjects.router.replay, { decisionId: next.d.decisionId })).identical).toBe(
      true,
    );
  });

  it('withdraws a step when the last reaction is removed; bots never count', async () => {
    const g = snowflake();
    const t = await turn(g);
    const [a, bot] = [snowflake(), snowflake()];
    await react(g, t.channel, t.messageId, bot, '👎', 'reaction.added', { userIsBot: true });
    await firstStep(g, t, a);
    await react(g, t.channel, t.messageId, a, '👍', 'reaction.removed');
    await waitFor(() => steps(g).length === 2, 30_000);
    expect(steps(g).map((e) => [e.cause.signal, e.delta])).toEqual([
      ['reaction', 0.1],
      ['withdrawn', -0.1],
    ]);
    expect((await adjustment(g, t.d.inputs!.contextClass!)).adjustment).toBe(0);
    expect(steps(g).some((e) => e.cause.userId === bot)).toBe(false);
  });

  it("caps a member's signals per guild per day and keeps guilds apart", async () => {
    const [g, other] = [snowflake(), snowflake()];
    const member = snowflake();
    for (let i = 0; i < 4; i++) {
      const t = await turn(g);
      if (i < 3) await firstStep(g, t, member);
      else {
        await react(g, t.channel, t.messageId, member, '👍');
        // A later member's step on the same message proves the capped one was handled.
        await firstStep(g, t, snowflake());
      }
    }
    expect(steps(g).filter((e) => e.cause.userId === member)).toHaveLength(3);
    expect(
      (await ok(Subjects.admin.learningGet, { guildId: other, agentId: 'dit' })).adjustments,
    ).toEqual([]);
    const elsewhere = await turn(other);
    expect(elsewhere.d.inputs!.agent.weights ?? {}).toEqual({});
  });

  it('replays with candidate weights and tries them on the last decisions', async () => {
    const g = snowflake();
    const { d } = await turn(g);
    expect(d.chosen).toBe(D);
    expect((await ok(Subjects.router.replay, { decisionId: d.decisionId })).identical).toBe(true);
    const off = await ok(Subjects.router.replay, {
      decisionId: d.decisionId,
      weights: { [D]: 0 },
    });
    expect([off.chosen === D, off.identical]).toEqual([false, false]);
    const w = await ok(Subjects.router.whatif, { guildId: g, last: 10, weights: { [D]: 0 } });
    expect(w).toMatchObject({ decisions: 1, changed: 1 });
    expect(w.byDisposition[D]).toEqual({ before: 1, after: 0 });
    const mine = { guildId: g, last: 10, weights: { [D]: 0 } };
    expect(await ok(Subjects.router.whatif, { ...mine, agentId: 'dit' })).toMatchObject({
      decisions: 1,
    });
    expect(await ok(Subjects.router.whatif, { ...mine, agentId: 'someone-else' })).toEqual({
      decisions: 0,
      changed: 0,
      byDisposition: {},
    });
    const bad = await s.request(Subjects.router.whatif, {
      guildId: g,
      last: 10,
      weights: { 'Not An Id': 1 },
    });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('rebuilds the adjustments from the events', async () => {
    const g = snowflake();
    const t = await turn(g);
    await firstStep(g, t, snowflake());
    await s.discord.human(g, t.channel, 'that is not funny, stop', {
      replyToMessageId: t.messageId,
      authorId: snowflake(),
    });
    await waitFor(() => steps(g).length === 2, 30_000);
    const last = new Map(
      steps(g).map((e) => [`${e.contextClass}/${e.dispositionId}`, e.adjustment]),
    );
    const r = await ok(Subjects.admin.learningGet, { guildId: g, agentId: 'dit' });
    expect(
      new Map(
        r.adjustments.map((a: any) => [`${a.contextClass}/${a.dispositionId}`, a.adjustment]),
      ),
    ).toEqual(last);
    await ok(Subjects.admin.learningReset, { guildId: g, agentId: 'dit' });
    expect(
      (await ok(Subjects.admin.learningGet, { guildId: g, agentId: 'dit' })).adjustments,
    ).toEqual([]);
  });

  it('never pulls an admin weight outside the bounds in, and freezes when off', async () => {
    await ok(Subjects.admin.personaUpsert, { agentId: 'dit', dispositionWeights: { [D]: 0.001 } });
    const g = snowflake();
    const t = await turn(g);
    expect(t.d.inputs!.agent.weights).toEqual({ [D]: 0.001 });
    const cls = t.d.inputs!.contextClass!;
    // The origin is known once a first signal counts; then a 👎 at the baseline moves nothing.
    const up = snowflake();
    await firstStep(g, t, up);
    await react(g, t.channel, t.messageId, up, '👍', 'reaction.removed');
    await waitFor(() => steps(g).length === 2, 30_000);
    await react(g, t.channel, t.messageId, snowflake(), '👎');
    await waitFor(async () => (await signals(g)) === 2, 30_000);
    expect(steps(g)).toHaveLength(2);
    expect((await adjustment(g, cls)).effective).toBe(0.001);
    // A 👍 moves it one rate step toward the bounds, not to them.
    await react(g, t.channel, t.messageId, snowflake(), '👍');
    await waitFor(() => steps(g).length === 3, 30_000);
    expect((await adjustment(g, cls)).effective).toBe(0.101);

    await ok(Subjects.admin.personaUpsert, { agentId: 'dit', learning: { enabled: false } });
    await react(g, t.channel, t.messageId, snowflake(), '👍');
    await waitFor(async () => (await signals(g)) === 4, 30_000);
    expect(steps(g)).toHaveLength(3);
    expect((await adjustment(g, cls)).effective).toBe(0.101);
    await ok(Subjects.admin.personaUpsert, {
      agentId: 'dit',
      dispositionWeights: { [D]: 1 },
      learning: { enabled: true },
    });
  });
});
