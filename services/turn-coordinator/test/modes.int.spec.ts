import { Subjects, subject } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from './harness';

describe('turn coordinator: modes, wake modes and members joining', () => {
  let h: Harness;
  let agents: Agent[];
  const human = snowflake();

  beforeAll(async () => {
    h = await Harness.start();
    agents = makeAgents(3, 'modes');
    await h.register(agents);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('creates work channels (everyone may speak, mode locked) and report channels (nobody)', async () => {
    const work = await h.create(subject.tool('create-work-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'work',
      members: [agents[1].userId],
    });
    expect(await h.channel(work.channelId)).toMatchObject({ mode: 'work', tmState: 'disabled' });
    const free = await h.relay.checkTurn({
      guildId: h.guildId,
      channelId: work.channelId,
      agentId: agents[1].agentId,
    });
    expect(free).toMatchObject({ allowed: true, tmState: 'disabled' });
    const locked = await h.request(Subjects.admin.channelSetMode, {
      guildId: h.guildId,
      channelId: work.channelId,
      mode: 'chat',
    });
    expect(locked).toMatchObject({ ok: false, error: { code: 'MODE_LOCKED' } });

    const report = await h.create(subject.tool('create-report-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'report',
    });
    expect(await h.channel(report.channelId)).toMatchObject({ mode: 'report', tmState: 'dead' });
    const dead = await h.relay.checkTurn({
      guildId: h.guildId,
      channelId: report.channelId,
      agentId: agents[0].agentId,
    });
    expect(dead.allowed).toBe(false);
    const none = await h.ok(Subjects.admin.channelSetMode, {
      guildId: h.guildId,
      channelId: report.channelId,
      mode: 'none',
    });
    expect(none).toMatchObject({ mode: 'none', tmState: 'disabled' });
  });

  it('wakes by Discord ping only when the channel is set to', async () => {
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'discord-wake',
      participants: [agents[1].userId],
    });
    const view = await h.ok(Subjects.admin.channelSetWakeMode, {
      guildId: h.guildId,
      channelId,
      wakeMode: 'discord',
    });
    expect(view).toMatchObject({ wakeMode: 'discord' });
    await h.fake.post(h.guildId, channelId, human, 'ping me', false);
    await waitFor(() => h.fake.sentTo(channelId, 'schedule-identifier').length === 1, 10_000);
    const speaker = (await h.channel(channelId)).currentSpeaker as string;
    const user = agents.find((a) => a.agentId === speaker)!.userId;
    expect(h.fake.sentTo(channelId, 'schedule-identifier')[0]).toMatchObject({
      content: `<@${user}> ➡️`,
      deleteAfterSend: true,
    });
  });

  it('adds an agent who joins mid-cycle at the next boundary, and does not rest then', async () => {
    const [a, b, c] = agents;
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: a.agentId,
      guildId: h.guildId,
      name: 'joining',
      participants: [b.userId],
    });
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, human, 'start', false);
    await waitFor(() => grants.length === 1, 10_000);

    await h.fake.join(h.guildId, channelId, { userId: c.userId, isBot: true });
    await waitFor(async () => (await h.channel(channelId)).members.length === 3, 10_000);
    expect((await h.channel(channelId)).speakers).toHaveLength(2);

    await h.runAgents(channelId, [a, b, c], () => 'NO_REPLY');
    await h.relay.completeTurn({
      guildId: h.guildId,
      channelId,
      agentId: grants[0].agentId,
      runId: `first-${snowflake()}`,
      text: 'NO_REPLY',
    });
    // Cycle 1 was all empty but a newcomer arrived: cycle 2 runs with three agents.
    await waitFor(
      async () => grants.length >= 5 && (await h.channel(channelId)).dormant,
      20_000,
      50,
      'cycle 2 and dormancy',
    );
    const cycle2 = grants.filter((g) => g.cycle === 2).map((g) => g.agentId);
    expect([...cycle2].sort()).toEqual([a, b, c].map((x) => x.agentId).sort());
    expect((await h.channel(channelId)).tmState).toBe('shuffle');
  });

  it('cancels a delivery wait when someone else speaks, and wakes the channel afresh', async () => {
    const [a, b] = agents;
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: a.agentId,
      guildId: h.guildId,
      name: 'interrupted',
      participants: [b.userId],
    });
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, human, 'question', false);
    await waitFor(() => grants.length === 1, 10_000);
    await h.relay.completeTurn({
      guildId: h.guildId,
      channelId,
      agentId: grants[0].agentId,
      runId: `slow-${snowflake()}`,
      text: 'An answer that Discord has not shown yet.',
    });
    await waitFor(async () => (await h.channel(channelId)).awaitingDelivery, 10_000);
    await h.fake.post(h.guildId, channelId, human, 'actually, another question', false);
    await waitFor(() => grants.length === 2, 10_000);
    // A wake from dormant: the first agent of the speaker list (the interrupted one) opens.
    expect(grants[1]).toMatchObject({ reason: 'wake', cycle: 2, agentId: grants[0].agentId });
    expect((await h.channel(channelId)).awaitingDelivery).toBe(false);
  });

  it('stops bots looping after three cycles without a person, until a person speaks', async () => {
    const [a, b] = agents;
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: a.agentId,
      guildId: h.guildId,
      name: 'looping',
      participants: [b.userId],
    });
    const grants = await h.grants(channelId);
    await h.runAgents(
      channelId,
      [a, b],
      (agent, g) => `${agent.agentId} keeps talking ${g.turnId}`,
    );
    await h.fake.post(h.guildId, channelId, human, 'discuss among yourselves', false);
    await waitFor(
      async () => (await h.channel(channelId)).dormantReason === 'loop-breaker',
      20_000,
      50,
      'the loop breaker',
    );
    expect(grants).toHaveLength(6);
    await waitFor(() => h.fake.sentTo(channelId, 'notice').length === 1, 10_000);
    expect(h.fake.sentTo(channelId, 'notice')[0].content).toContain('without a human message');
    // Another bot cannot restart it; a person can.
    await h.fake.post(h.guildId, channelId, snowflake(), 'beep', true);
    expect((await h.channel(channelId)).dormant).toBe(true);
    await h.fake.post(h.guildId, channelId, human, 'ok, go on', false);
    // The agents keep talking after the wake: more grants follow at once.
    await waitFor(() => grants.length >= 7, 10_000);
    expect(grants[6].reason).toBe('wake');
  });
});
