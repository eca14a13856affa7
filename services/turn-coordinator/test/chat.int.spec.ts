import { Subjects, subject } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from './harness';

/** Splits grants into cycles (by the grant's cycle number). */
function cycles(grants: { cycle: number; agentId: string }[]): string[][] {
  const byCycle = new Map<number, string[]>();
  for (const g of grants) byCycle.set(g.cycle, [...(byCycle.get(g.cycle) ?? []), g.agentId]);
  return [...byCycle.entries()].sort((a, b) => a[0] - b[0]).map(([, ids]) => ids);
}

describe('turn coordinator: a three-agent chat channel', () => {
  let h: Harness;
  let agents: Agent[];
  let channelId: string;
  const human = snowflake();
  let quiet = false;

  beforeAll(async () => {
    h = await Harness.start();
    agents = makeAgents(3, 'chat');
    await h.register(agents);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('creates a chat channel that starts dormant with every agent as a speaker', async () => {
    const created = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'three-agents',
      participants: [agents[1].userId, agents[2].userId],
    });
    channelId = created.channelId;
    expect(h.fake.created.find((c) => c.channelId === channelId)?.memberIds).toEqual(
      expect.arrayContaining(agents.map((a) => a.userId)),
    );
    const view = await h.channel(channelId);
    expect(view).toMatchObject({ mode: 'chat', tmState: 'shuffle', dormant: true });
    expect([...view.speakers].sort()).toEqual(agents.map((a) => a.agentId).sort());
    expect(view.currentSpeaker).toBeNull();
  });

  it('wakes on a human message, rotates through full shuffled cycles and goes dormant', async () => {
    const grants = await h.grants(channelId);
    // Two cycles of real replies, then everyone passes.
    await h.runAgents(channelId, agents, (a, g) =>
      quiet || g.cycle >= 3 ? 'NO_REPLY' : `${a.agentId} says something useful in cycle ${g.cycle}`,
    );
    const messageId = await h.fake.post(h.guildId, channelId, human, 'hello agents', false);
    // Causal consistency: checks naming the waking message see the wake.
    const answers = await Promise.all(
      agents.map((a) =>
        h.relay.checkTurn({ guildId: h.guildId, channelId, agentId: a.agentId, messageId }),
      ),
    );
    expect(answers.filter((a) => a.allowed)).toHaveLength(1);
    expect(answers.every((a) => a.dormant === false && a.currentSpeaker !== null)).toBe(true);

    await waitFor(
      async () => grants.length >= 9 && (await h.channel(channelId)).dormant,
      30_000,
      50,
      'three cycles and dormancy',
    );
    const view = await h.channel(channelId);
    expect(view).toMatchObject({ dormant: true, dormantReason: 'unanimous-empty' });
    expect(view.currentSpeaker).toBeNull();
    expect(grants).toHaveLength(9);
    const rounds = cycles(grants);
    expect(rounds).toHaveLength(3);
    for (const r of rounds) expect([...r].sort()).toEqual(agents.map((a) => a.agentId).sort());
    for (let i = 1; i < rounds.length; i++) expect(rounds[i][0]).not.toBe(rounds[i - 1][2]);
    expect(new Set(grants.map((g) => g.turnId)).size).toBe(9);
    expect(grants[0].reason).toBe('wake');

    // Every grant also pinged the speaker on Discord, and the ping deletes itself.
    await waitFor(() => h.fake.sentTo(channelId, 'schedule-identifier').length >= 9, 10_000);
    const pings = h.fake.sentTo(channelId, 'schedule-identifier');
    expect(pings).toHaveLength(9);
    expect(pings.every((p) => p.deleteAfterSend === true && p.content.includes('➡️'))).toBe(true);
  });

  it('refuses agents that do not hold the turn and ignores their completions', async () => {
    const check = await h.relay.checkTurn({
      guildId: h.guildId,
      channelId,
      agentId: agents[1].agentId,
    });
    expect(check).toMatchObject({ allowed: false, dormant: true, mode: 'chat' });
    await h.relay.completeTurn({
      guildId: h.guildId,
      channelId,
      agentId: agents[1].agentId,
      runId: 'stray-run',
      text: 'I was not asked',
    });
    const view = await h.channel(channelId);
    expect(view.dormant).toBe(true);
  });

  it('wakes again on the next human message and rests again when all pass', async () => {
    quiet = true;
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, human, 'anyone there?', false);
    await waitFor(
      async () => grants.length >= 3 && (await h.channel(channelId)).dormant,
      20_000,
      50,
      'a woken cycle and dormancy',
    );
    expect(grants[0]).toMatchObject({ reason: 'wake', cycle: 4 });
    expect(grants).toHaveLength(3);
  });

  it('answers the channel view and refuses bad input with BAD_REQUEST', async () => {
    const bad = await h.request(Subjects.turn.check, { channelId: 'nope', agentId: 'x' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.code).toBe('BAD_REQUEST');
    const unknown = await h.channel(snowflake());
    expect(unknown).toMatchObject({ mode: 'none', tmState: 'disabled', currentSpeaker: null });
  });
});
