import { EntityManager } from '@mikro-orm/postgresql';
import { Subjects, subject, type LearningHistoryResult } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { startRouterStack, type RouterStack } from '../../test/harness';

// Only `factual-recall` (deadpan, single-line) may answer a mention: every turn speaks.
const yaml = `
agents:
  - id: dit
    name: Dit
    voices: [deadpan]
    weights: { factual-recall: 1.5 }
    learning: { rate: 0.1, bounds: [0.5, 2] }
speculative: { enabled: false }
followups: { enabled: false }
`;

/**
 * `admin.learning.history` through NATS and Postgres: the turns that posted and what
 * members (and the room) made of them per context class and disposition, and every
 * `learning.adjusted` step of the guild's agent with the effective weight it left.
 */
describe('router: learning history (the engagement view)', () => {
  let s: RouterStack;
  const D = 'factual-recall';
  const g = snowflake();

  const ok = async <T>(subj: string, data: unknown): Promise<T> => {
    const r = await s.request(subj, data);
    if (!r.ok) throw new Error(`${subj}: ${JSON.stringify(r.error)}`);
    return r.data as T;
  };
  const steps = () =>
    s.events.filter((e) => e.subject === subject.learningAdjusted(g)).map((e) => e.data);
  const turn = async () => {
    const channel = snowflake();
    await s.discord.human(g, channel, 'dit, what is the answer?');
    const d = await waitFor(() => s.decisions(channel)[0], 30_000);
    const echo = await waitFor(() => s.discord.echoes.find((e) => e.channelId === channel), 30_000);
    return { d, channel, messageId: echo.messageId as string };
  };
  const react = (t: { channel: string; messageId: string }, userId: string, emoji: string) =>
    s.messaging.publishEvent(
      subject.discordEvent(g, t.channel, 'reaction.added'),
      'reaction.added',
      { guildId: g, channelId: t.channel, messageId: t.messageId, userId, emoji },
    );

  beforeAll(async () => {
    s = await startRouterStack(yaml);
    s.upstream.behave = () => ({ kind: 'ok', text: 'forty-two' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('counts posts, engaged, ignored and negative turns and lists each step', async () => {
    const [liked, disliked, ignored, quiet] = [
      await turn(),
      await turn(),
      await turn(),
      await turn(),
    ];
    const cls = liked.d.inputs!.contextClass!;
    const [a, b] = [snowflake(), snowflake()];
    // The origin of a message may lag its echo: react until the step is seen.
    await waitFor(async () => {
      await react(liked, a, '👍');
      return steps().some((e) => e.cause.messageId === liked.messageId);
    }, 30_000);
    await react(liked, b, '😂');
    await waitFor(async () => {
      await react(disliked, a, '👎');
      return steps().some((e) => e.cause.messageId === disliked.messageId);
    }, 30_000);
    await waitFor(() => steps().length === 3, 30_000);
    // The room's judgement and a kind this reader does not know, as the signal store keeps them.
    const em = s.router.get(EntityManager).fork();
    const row = (messageId: string, userId: string, kind: string, polarity: string) =>
      em.execute(
        `insert into learning_signals (message_id, user_id, guild_id, agent_id, context_class,
           disposition_id, kind, polarity, delta, day, at)
         values (?, ?, ?, 'dit', ?, ?, ?, ?, 0, ?, now())`,
        [messageId, userId, g, cls, D, kind, polarity, new Date().toISOString().slice(0, 10)],
      );
    await row(ignored.messageId, 'room:0123456789abcde', 'ignored', 'negative');
    await row(quiet.messageId, snowflake(), 'cheered-later', 'positive');

    const h = await ok<LearningHistoryResult>(Subjects.admin.learningHistory, {
      guildId: g,
      agentId: 'dit',
    });
    expect(h.baseline).toEqual({ [D]: 1.5 });
    expect(h.bounds).toEqual([0.5, 2]);
    expect(h.engagement).toEqual([
      {
        contextClass: cls,
        dispositionId: D,
        posts: 4,
        engaged: 2,
        ignored: 1,
        negative: 1,
        signals: { reaction: 3, ignored: 1, 'cheered-later': 1 },
      },
    ]);
    expect(h.steps.map((x) => [x.contextClass, x.dispositionId, x.signal])).toEqual([
      [cls, D, 'reaction'],
      [cls, D, 'reaction'],
      [cls, D, 'reaction'],
    ]);
    const last = h.steps[h.steps.length - 1];
    const got = await ok<{ adjustments: { adjustment: number; effective: number }[] }>(
      Subjects.admin.learningGet,
      { guildId: g, agentId: 'dit' },
    );
    expect(last.adjustment).toBeCloseTo(got.adjustments[0].adjustment, 6);
    expect(last.effective).toBeCloseTo(got.adjustments[0].effective, 6);
    expect(h.steps.map((x) => x.effective)).toEqual(
      h.steps.map((x) => Math.min(2, Math.max(0.5, 1.5 + x.adjustment))),
    );
  });

  it('keeps guilds apart and refuses an unknown agent or a bad request', async () => {
    const other = await ok<LearningHistoryResult>(Subjects.admin.learningHistory, {
      guildId: snowflake(),
      agentId: 'dit',
    });
    expect(other.engagement).toEqual([]);
    expect(other.steps).toEqual([]);
    const unknown = await s.request(Subjects.admin.learningHistory, {
      guildId: g,
      agentId: 'nobody',
    });
    expect(unknown.ok).toBe(false);
    expect(unknown.error.code).toBe('NOT_FOUND');
    const bad = await s.request(Subjects.admin.learningHistory, {
      guildId: 'x',
      agentId: 'dit',
      days: 0,
    });
    expect(bad.ok).toBe(false);
    expect(bad.error.code).toBe('BAD_REQUEST');
  });
});
