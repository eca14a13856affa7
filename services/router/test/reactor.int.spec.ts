import { EnvelopeTypes, Subjects, subject } from '@dirigent/contracts';
import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
import { snowflake, testDatabaseUrl, waitFor } from '@dirigent/testing';
import { knex, MikroORM } from '@mikro-orm/postgresql';
import { nextSnowflake } from '../../turn-coordinator/test/fake-ingest';
import { startRouterStack, type RouterStack } from './harness';

const YAML = `
agents:
  - { id: dot, name: Dot }
speculative: { enabled: true, quietMs: 600, minSinceBotTurnMs: 0, chance: 1, minBudgetFraction: 0.3 }
followups: { enabled: true, midThoughtMs: 0 }
`;

const RESEARCH = /brainstorm|profile the people|dig through|find substantive|argue against/;

describe('router reactor: fan-out, grants, self-follow-ups, speculative turns', () => {
  let s: RouterStack;
  const guild = snowflake();
  const completions: any[] = [];

  beforeAll(async () => {
    s = await startRouterStack(YAML, {
      DIRIGENT_ROUTER_PERSONA_TIMEOUT_MS: '700',
      DIRIGENT_ROUTER_TIEBREAK: 'true',
    });
    s.messaging.client.nc.subscribe(Subjects.turn.completeAll, {
      callback: (_e, m) => {
        completions.push(m.json<any>().data);
      },
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  async function only(weights: Record<string, number>, extra: Record<string, unknown> = {}) {
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await s.request(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: weights[d.id] ?? 0,
        ...(extra[d.id] as object),
      });
      expect(r.ok).toBe(true);
    }
  }
  const followupEvents = (channelId: string) =>
    s.events.filter((e) => e.subject.endsWith(`${channelId}.followup`)).map((e) => e.data);

  it('fans out the disposition’s personas in parallel; a slow persona times out, the synthesizer still answers', async () => {
    await only({ 'roast-back': 1 });
    s.upstream.behave = (seen) => {
      const system = String(seen.body.messages?.[0]?.content ?? '');
      if (/brainstorm/.test(system)) return { kind: 'hang' };
      if (RESEARCH.test(system)) return { kind: 'ok', text: 'they love puns' };
      return { kind: 'ok', text: 'nice try' };
    };
    const channel = snowflake();
    await s.discord.human(guild, channel, 'roast me, dot');
    await waitFor(() => s.discord.sent(channel).length === 1, 10_000);
    const [d] = s.decisions(channel);
    expect(d.subagents.sort()).toEqual(['comedian', 'participant-profiler']);
    const synth = s.upstream.seen
      .filter((x) => !RESEARCH.test(String(x.body.messages[0].content)))
      .at(-1)!;
    expect(synth.body.messages[1].content).toContain('## research material');
    expect(synth.body.messages[1].content).toContain('they love puns');
    const runs = await s.router
      .get(MikroORM)
      .em.getConnection()
      .execute(`select persona, status from subagent_runs where decision_id = ? order by persona`, [
        d.decisionId,
      ]);
    expect(runs).toEqual([
      { persona: 'comedian', status: 'timeout' },
      { persona: 'participant-profiler', status: 'success' },
    ]);
    s.upstream.behave = () => ({ kind: 'ok', text: 'ok' });
  });

  it('a tight top pair is broken by purpose router-classify', async () => {
    await only({ 'quick-react': 2, 'factual-recall': 1 });
    s.upstream.behave = (seen) =>
      /one option id/.test(String(seen.body.messages?.[0]?.content))
        ? { kind: 'ok', text: 'factual-recall' }
        : { kind: 'ok', text: 'it is 42' };
    const channel = snowflake();
    await s.discord.human(guild, channel, 'dot, thoughts?');
    await waitFor(() => s.discord.sent(channel).length === 1);
    const [d] = s.decisions(channel);
    const scores = Object.fromEntries(d.candidates.map((c: any) => [c.dispositionId, c.score]));
    expect(scores['quick-react']).toBe(scores['factual-recall']);
    expect(d).toMatchObject({ chosen: 'factual-recall', dimensions: { voice: 'deadpan' } });
    expect(
      s.upstream.seen.some((x) => /Options:/.test(String(x.body.messages?.[1]?.content))),
    ).toBe(true);
  });

  it('a grant is answered and the turn completed; silence completes it empty', async () => {
    await only({ 'quick-react': 1 });
    s.upstream.behave = () => ({ kind: 'ok', text: 'my turn, then' });
    const channel = snowflake();
    const grant = (turnId: string) =>
      s.messaging.publishEvent(subject.turnGranted(channel), EnvelopeTypes.turnGranted, {
        guildId: guild,
        channelId: channel,
        agentId: 'dot',
        turnId,
        cycle: 1,
        reason: 'test',
      });
    await grant('t-1');
    const done = await waitFor(() => completions.find((c) => c.turnId === 't-1'));
    expect(done).toMatchObject({ agentId: 'dot', channelId: channel, text: 'my turn, then' });
    await only({ 'silent-listen': 1 });
    await grant('t-2');
    const silent = await waitFor(() => completions.find((c) => c.turnId === 't-2'));
    expect(silent.text).toBe('');
  });

  it('a grant that reaches the router before the message that caused it answers that message', async () => {
    await only({ 'quick-react': 1, 'silent-listen': 1 });
    s.upstream.behave = () => ({ kind: 'ok', text: 'pinned, then' });
    const channel = snowflake();
    // The router's Discord consumer is held up: as many messages as it handles at once
    // (16) wait on a lock of its inbox table, so the next one is not delivered until the
    // lock goes. The coordinator's grant comes by another consumer, at once.
    const db = knex({ client: 'pg', connection: testDatabaseUrl(), pool: { min: 1, max: 1 } });
    const lock = await db.transaction();
    try {
      await lock.raw('lock table router_inbound in exclusive mode');
      const busy = snowflake();
      for (let i = 0; i < 16; i++) {
        await s.discord.human(guild, busy, `busy ${i}`, { authorIsBot: true });
      }
      const ask = await s.discord.human(guild, channel, 'dot, pin that');
      await s.messaging.publishEvent(subject.turnGranted(channel), EnvelopeTypes.turnGranted, {
        guildId: guild,
        channelId: channel,
        agentId: 'dot',
        turnId: 't-overtaken',
        cycle: 1,
        reason: 'wake',
      });
      await new Promise((r) => setTimeout(r, 1000));
      await lock.commit();
      const done = await waitFor(() => completions.find((c) => c.turnId === 't-overtaken'));
      expect(done.text).toBe('pinned, then');
      const [d] = s.decisions(channel).filter((x) => x.seed === `t-overtaken:dot`);
      expect(d).toMatchObject({ inboundMessageId: ask.messageId, chosen: 'quick-react' });
      // The channel is unmanaged here (no coordinator), so the message's own turn ran too,
      // in the lane behind the grant's: it finds the message answered and decides nothing.
      const em = s.router.get(MikroORM).em.fork();
      await waitFor(async () => {
        const [row] = await em
          .getConnection()
          .execute(`select settled_at from router_inbound where message_id = ?`, [ask.messageId]);
        return row?.settled_at != null;
      });
      expect(s.decisions(channel).filter((x) => x.inboundMessageId === ask.messageId)).toEqual([d]);
    } finally {
      if (!lock.isCompleted()) await lock.rollback();
      await db.destroy();
    }
  });

  it('a self-follow-up fires once, routed with its bias, and schedules no other', async () => {
    await only(
      { 'quick-react': 1 },
      {
        'quick-react': {
          selfFollowupHint: { probability: 1, bias: 'go-deeper', windowMs: [300, 300] },
        },
      },
    );
    s.upstream.behave = () => ({ kind: 'ok', text: 'quick one' });
    const channel = snowflake();
    await s.discord.human(guild, channel, 'dot, thoughts?');
    const fired = await waitFor(
      () => followupEvents(channel).find((f) => f.status === 'fired'),
      10_000,
    );
    const scheduled = followupEvents(channel).find((f) => f.status === 'scheduled');
    expect(scheduled).toMatchObject({ followupId: fired.followupId, bias: 'go-deeper' });
    const child = await waitFor(() =>
      s.decisions(channel).find((d) => d.trigger === 'self-followup'),
    );
    expect(child).toMatchObject({
      followupId: fired.followupId,
      parentDecisionId: fired.parentDecisionId,
    });
    expect(child.followup).toBeUndefined();
    // Why it ran: the reactor job on the timer its parent decision armed.
    expect(child.lineage).toEqual({
      job: 'self-followup',
      trigger: 'timer',
      causeId: expect.any(String),
      parentId: fired.parentDecisionId,
    });
    const parent = s.decisions(channel).find((d) => d.decisionId === fired.parentDecisionId)!;
    expect(parent.lineage).toMatchObject({ job: 'reactive-turn', trigger: 'event' });
    await new Promise((r) => setTimeout(r, 500));
    expect(followupEvents(channel).filter((f) => f.status === 'fired')).toHaveLength(1);
  });

  it('a human reply to the bot aborts the follow-up', async () => {
    await only(
      { 'quick-react': 1 },
      {
        'quick-react': {
          // Long enough for the reply to land before it comes due on a loaded machine.
          selfFollowupHint: { probability: 1, bias: 'self-correct', windowMs: [4000, 4000] },
        },
      },
    );
    s.upstream.behave = () => ({ kind: 'ok', text: 'hot take' });
    const channel = snowflake();
    await s.discord.human(guild, channel, 'dot?');
    const [bot] = await waitFor(() =>
      s.discord.sent(channel).length ? s.discord.sent(channel) : null,
    );
    await waitFor(() => followupEvents(channel).find((f) => f.status === 'scheduled'));
    // The webhook echo of the bot's message is the one a human replies to.
    const botMessage = await waitFor(async () => {
      const r = await s.request(Subjects.router.decisionsList, {
        guildId: guild,
        channelId: channel,
      });
      return r.data.decisions[0];
    });
    expect(bot.data.content).toBe(botMessage.beats[0].text);
    const row = await s.router
      .get(MikroORM)
      .em.getConnection()
      .execute(`select bot_message_ids from self_followup_schedules where parent_decision_id = ?`, [
        botMessage.decisionId,
      ]);
    const [botMessageId] = row[0].bot_message_ids;
    await only({ 'silent-listen': 1 });
    await s.discord.human(guild, channel, 'no way', {
      replyToMessageId: botMessageId,
      messageId: nextSnowflake(),
    });
    const aborted = await waitFor(
      () => followupEvents(channel).find((f) => f.status === 'aborted'),
      10_000,
    );
    expect(aborted.reason).toBe('human-replied');
  });

  it('a follow-up due while its channel’s lane is busy aborts then, not after the lane', async () => {
    // Long enough for the reply to land before it comes due on a loaded machine.
    const hint = { probability: 1, bias: 'self-correct', windowMs: [4000, 4000] };
    await only({ 'quick-react': 1 }, { 'quick-react': { selfFollowupHint: hint } });
    s.upstream.behave = () => ({ kind: 'ok', text: 'lukewarm take' });
    const channel = snowflake();
    await s.discord.human(guild, channel, 'dot, opinion?');
    const scheduled = await waitFor(() =>
      followupEvents(channel).find((f) => f.status === 'scheduled'),
    );
    const [bot] = await waitFor(async () => {
      const rows = await s.router
        .get(MikroORM)
        .em.getConnection()
        .execute(`select bot_message_ids from self_followup_schedules where followup_id = ?`, [
          scheduled.followupId,
        ]);
      return rows[0]?.bot_message_ids.length ? rows[0].bot_message_ids : null;
    });
    // Dot's turn on the reply holds the channel's lane in its model call past the due time.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holding = false;
    s.upstream.behave = () => {
      holding = true;
      return { kind: 'hold', until: held, then: { kind: 'ok', text: 'fine, fine' } };
    };
    try {
      await s.discord.human(guild, channel, 'no way', {
        replyToMessageId: bot,
        messageId: nextSnowflake(),
      });
      await waitFor(() => holding, 10_000);
      const aborted = await waitFor(
        () => followupEvents(channel).find((f) => f.status === 'aborted'),
        15_000,
      );
      expect(aborted).toMatchObject({ followupId: scheduled.followupId, reason: 'human-replied' });
      expect(holding).toBe(true);
    } finally {
      release();
    }
    await waitFor(() => s.discord.sent(channel).some((c) => c.data.content === 'fine, fine'));
  });

  it('a quiet channel gets a speculative turn, only from speculative-only dispositions', async () => {
    await only({ 'observation-drop': 1, 'quick-react': 1 });
    s.upstream.behave = () => ({ kind: 'ok', text: 'funny how quiet it got' });
    const channel = snowflake();
    await s.discord.human(guild, channel, 'anyone around');
    const spec = await waitFor(
      () => s.decisions(channel).find((d) => d.trigger === 'speculative'),
      10_000,
    );
    expect(spec.chosen).toBe('observation-drop');
    expect(spec.inboundMessageId).toBeUndefined();
    const reactive = s.decisions(channel).find((d) => d.trigger === 'reactive')!;
    expect(spec.lineage).toEqual({
      job: 'speculative-turn',
      trigger: 'all',
      causeId: expect.any(String),
      parentId: reactive.decisionId,
      via: [
        'timer',
        'unmanaged',
        'enabled',
        'quiet',
        'no-bot-turn',
        'human-within',
        'budget',
        'chance',
      ],
    });
    const listed = await s.request(Subjects.router.decisionsList, {
      guildId: guild,
      channelId: channel,
    });
    expect(listed.data.decisions.find((d: any) => d.trigger === 'speculative').lineage).toEqual(
      spec.lineage,
    );
    await waitFor(() =>
      s.discord.sent(channel).some((c) => c.data.content === 'funny how quiet it got'),
    );
  });
});
