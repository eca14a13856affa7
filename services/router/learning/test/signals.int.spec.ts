import type { INestApplication } from '@nestjs/common';
import { Durables, Streams, Subjects, type RouterDecision } from '@dirigent/contracts';
import { Clock } from '@dirigent/service-kit';
import { snowflake, waitFor } from '@dirigent/testing';
import { DurableTimers } from '@dirigent/timers';
import { startRouterApp, startRouterStack, type RouterStack } from '../../test/harness';
import { DIT_YAML, learningKit } from './kit';

const WINDOW = 3_600_000;
const HALF_LIFE = 86_400_000;
const LINE = 'the answer is forty-two, as the towel foretold';

/**
 * The room's signals through NATS, Postgres and the router's durable timers: a line the
 * room ignored, a quiet turn judged both ways, a quote or reference back, decay with the
 * half-life, frozen learning, and a judgement armed before a restart. The test moves the
 * router's clock instead of sleeping and has its timers look again at what came due.
 */
describe('router: learning signals from the room', () => {
  let s: RouterStack;
  let timers: DurableTimers;
  let offset = 0;
  const D = 'factual-recall';

  const { ok, steps, learned, react, idle, turn: answered } = learningKit(() => s);

  /** Moves the router's clock on and has its timers fire what came due. */
  const later = (ms: number) => {
    offset += ms;
    timers.rearm();
  };
  /** The timer `key` fired and every firing of the router's timers was handled. */
  const settled = (key: string) =>
    waitFor(async () => {
      if (await timers.isPending(key)) throw new Error(`${key} still pending`);
      return idle(Streams.timerFired, Durables.routerTimers);
    }, 30_000);
  const armed = (key: string) => waitFor(() => timers.isPending(key), 30_000);

  /** A mention answered in a fresh channel; its judgement armed. */
  const turn = async (guildId: string) => {
    const t = await answered(guildId);
    await armed(`learning-judge:${t.messageId}`);
    return t;
  };
  /** Humans talking to each other (each message mentions another member): Dit stays quiet. */
  const talk = async (guildId: string, channel: string, ...lines: string[]) => {
    for (const l of lines) {
      const to = snowflake();
      await s.discord.human(guildId, channel, `<@${to}> ${l}`, {
        authorId: snowflake(),
        mentions: [to],
      });
    }
  };
  /** A quiet turn in a fresh channel, its judgement armed. */
  const quiet = async (guildId: string) => {
    const channel = snowflake();
    await talk(guildId, channel, 'morning');
    const d: RouterDecision = await waitFor(() => s.decisions(channel)[0], 30_000);
    expect(['silent', 'react-only']).toContain(d.dimensions.outputShape);
    await armed(`learning-judge:quiet:${channel}:dit`);
    return { d, channel };
  };

  const env = {
    DIRIGENT_ROUTER_QUERY_TIMEOUT_MS: '500',
    DIRIGENT_LEARNING_JUDGE_WINDOW_MS: String(WINDOW),
    DIRIGENT_LEARNING_JUDGE_MIN_MESSAGES: '2',
    DIRIGENT_LEARNING_HALF_LIFE_MS: String(HALF_LIFE),
    // The guild's upkeep survey (memory is not running here) never comes due.
    DIRIGENT_UPKEEP_SURVEY_MS: '1000000000000',
  };
  /** The router app's clock runs `offset` ahead of the wall clock; its timers are ours to rearm. */
  const hold = (router: INestApplication) => {
    const clock = router.get(Clock);
    const real = clock.now.bind(clock);
    clock.now = () => real() + offset;
    timers = router.get(DurableTimers);
  };

  beforeAll(async () => {
    s = await startRouterStack(DIT_YAML, env);
    s.upstream.behave = () => ({ kind: 'ok', text: LINE });
    hold(s.router);
  });
  // The clock moves on only to fire timers and read decay: the channels' history is kept at
  // the wall clock's time.
  afterEach(() => {
    offset = 0;
  });
  let restarted: INestApplication | undefined;
  afterAll(async () => {
    // The stack closes the router it started (closed already when the test restarted it).
    await restarted?.close();
    await s?.close();
  });

  it('calls a line ignored after the window when humans kept talking, not when engaged', async () => {
    const g = snowflake();
    const [ignored, reacted] = [await turn(g), await turn(g)];
    await talk(g, ignored.channel, 'anyway, lunch?', 'tacos again');
    await talk(g, reacted.channel, 'anyway, lunch?', 'tacos again');
    // A reaction no signal reads (🤔 is neither positive nor negative) still engages.
    await react(g, reacted.channel, reacted.messageId, snowflake(), '🤔');
    expect(steps(g)).toEqual([]);
    later(WINDOW + 1000);
    await settled(`learning-judge:${ignored.messageId}`);
    await settled(`learning-judge:${reacted.messageId}`);
    expect(steps(g).map((e) => [e.cause, e.delta, e.dispositionId])).toEqual([
      [{ messageId: ignored.messageId, signal: 'ignored' }, -0.1, D],
    ]);
    expect(steps(g)[0].contextClass).toBe(ignored.d.inputs!.contextClass);
  });

  it('judges a quiet turn: fine when the room went on, missed when someone asked for Dit', async () => {
    const g = snowflake();
    const fine = await quiet(g);
    await talk(g, fine.channel, 'coffee?', 'yes please');
    const missed = await quiet(g);
    await talk(g, missed.channel, 'where is dit when you need it');
    await waitFor(() => s.discord.echoes.find((e) => e.channelId === missed.channel), 30_000);
    later(WINDOW + 1000);
    await settled(`learning-judge:quiet:${fine.channel}:dit`);
    await settled(`learning-judge:quiet:${missed.channel}:dit`);
    const by = (signal: string) => steps(g).filter((e) => e.cause.signal === signal);
    expect(by('silent-ok').map((e) => [e.cause.messageId, e.dispositionId, e.delta])).toEqual([
      [fine.d.inboundMessageId, fine.d.chosen, 0.1],
    ]);
    expect(by('silent-missed').map((e) => [e.cause.messageId, e.dispositionId, e.delta])).toEqual([
      [missed.d.inboundMessageId, missed.d.chosen, -0.1],
    ]);
  });

  it('takes a reference back or a quote as a positive step of its member', async () => {
    const g = snowflake();
    const t = await turn(g);
    const [a, b] = [snowflake(), snowflake()];
    // A run of the line's words, quoted in a message of its own (not a reply).
    const other = snowflake();
    await s.discord.human(g, t.channel, `<@${other}> lol "${t.content.slice(0, 40)}"`, {
      authorId: a,
      mentions: [other],
    });
    await waitFor(() => steps(g).length === 1, 30_000);
    // "like Dit said" refers back to Dit's latest line in the channel.
    await s.discord.human(g, t.channel, 'yeah, like Dit said', { authorId: b });
    await waitFor(() => steps(g).length === 2, 30_000);
    expect(steps(g).map((e) => [e.cause, e.delta])).toEqual([
      [{ userId: a, messageId: t.messageId, signal: 'quote' }, 0.1],
      [{ userId: b, messageId: t.messageId, signal: 'quote' }, 0.1],
    ]);
  });

  it('decays an adjustment toward 0 with the half-life', async () => {
    const g = snowflake();
    const t = await turn(g);
    await react(g, t.channel, t.messageId, snowflake(), '👍');
    await waitFor(() => steps(g).length === 1, 30_000);
    const cls = t.d.inputs!.contextClass!;
    const adj = async () =>
      (await learned(g)).adjustments.find(
        (x: any) => x.contextClass === cls && x.dispositionId === D,
      );
    expect((await adj()).adjustment).toBeCloseTo(0.1, 4);
    later(HALF_LIFE);
    expect((await adj()).adjustment).toBeCloseTo(0.05, 4);
    later(2 * HALF_LIFE);
    expect((await adj()).adjustment).toBeCloseTo(0.0125, 4);
  });

  it('emits nothing from the room while learning is frozen', async () => {
    await ok(Subjects.admin.personaUpsert, { agentId: 'dit', learning: { enabled: false } });
    try {
      const g = snowflake();
      const t = await turn(g);
      await talk(g, t.channel, 'anyway, lunch?', 'tacos again');
      later(WINDOW + 1000);
      await settled(`learning-judge:${t.messageId}`);
      // The room's verdict is kept (one signal), and moves nothing.
      expect(await learned(g)).toEqual({ signals: 1, adjustments: [] });
      expect(steps(g)).toEqual([]);
    } finally {
      await ok(Subjects.admin.personaUpsert, { agentId: 'dit', learning: { enabled: true } });
    }
  });

  it('judges a line whose timer was armed before the router restarted', async () => {
    const g = snowflake();
    const t = await turn(g);
    await talk(g, t.channel, 'anyway, lunch?', 'tacos again');
    await waitFor(() => idle(Streams.discordEvents, Durables.routerDiscordEvents), 30_000);
    await s.router.close();
    restarted = await startRouterApp(DIT_YAML, env);
    hold(restarted);
    later(WINDOW + 1000);
    await settled(`learning-judge:${t.messageId}`);
    expect(steps(g).map((e) => [e.cause, e.delta])).toEqual([
      [{ messageId: t.messageId, signal: 'ignored' }, -0.1],
    ]);
  });
});
