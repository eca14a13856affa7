import { Subjects, subject } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from './harness';

describe('turn coordinator: multi-message mode', () => {
  let h: Harness;
  let agents: Agent[];
  let channelId: string;
  const human = snowflake();

  beforeAll(async () => {
    h = await Harness.start();
    agents = makeAgents(2, 'mm');
    await h.register(agents);
    ({ channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'multi-message',
      participants: [agents[1].userId],
    }));
  });

  afterAll(async () => {
    await h?.close();
  });

  it('holds every agent back while a person writes several messages, then wakes the next', async () => {
    const grants = await h.grants(channelId);
    expect(await h.channel(channelId)).toMatchObject({ tmState: 'normal', dormant: true });

    // The first message wakes the channel; the speaker holds the turn without answering yet.
    await h.fake.post(h.guildId, channelId, human, 'a question', false);
    await waitFor(() => grants.length === 1, 10_000);
    const speaker = grants[0].agentId;

    const start = await h.fake.post(h.guildId, channelId, human, 'wait ↗️ I have more', false);
    const during = await h.relay.checkTurn({
      guildId: h.guildId,
      channelId,
      agentId: speaker,
      messageId: start,
    });
    expect(during).toMatchObject({ allowed: false, multiMessage: true, currentSpeaker: null });

    await h.fake.post(h.guildId, channelId, human, 'second part', false);
    await h.fake.post(h.guildId, channelId, human, 'third part', false);
    await waitFor(() => h.fake.sentTo(channelId, 'prompt-marker').length === 2, 10_000);
    expect(h.fake.sentTo(channelId, 'prompt-marker').every((m) => m.content === '⤵️')).toBe(true);
    // Agents (and the moderator's own markers) do not end the mode.
    await h.fake.post(h.guildId, channelId, agents[1].userId, 'can I talk?', true);
    expect((await h.channel(channelId)).multiMessage).toBe(true);
    expect(grants).toHaveLength(1);

    const end = await h.fake.post(h.guildId, channelId, human, 'done ↙️', false);
    const after = await h.relay.checkTurn({
      guildId: h.guildId,
      channelId,
      agentId: agents[0].agentId,
      messageId: end,
    });
    expect(after.multiMessage).toBe(false);
    await waitFor(() => grants.length === 2, 10_000);
    expect(grants[1].reason).toBe('multi-message-end');
    const view = await h.channel(channelId);
    expect(view.currentSpeaker).toBe(grants[1].agentId);
    expect(h.fake.sentTo(channelId, 'prompt-marker')).toHaveLength(2);
  });

  it('changes the shuffle override and refuses locked or unknown modes', async () => {
    const shuffled = await h.ok<Record<string, unknown>>(Subjects.admin.channelSetShuffle, {
      guildId: h.guildId,
      channelId,
      shuffle: true,
    });
    expect(shuffled.shuffle).toBe(true);
    const locked = await h.request(Subjects.admin.channelSetMode, {
      guildId: h.guildId,
      channelId,
      mode: 'work',
    });
    expect(locked).toMatchObject({ ok: false, error: { code: 'MODE_LOCKED' } });
    const invalid = await h.request(Subjects.admin.channelSetMode, {
      guildId: h.guildId,
      channelId,
      mode: 'party',
    });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'INVALID_MODE' } });
    const report = await h.ok<Record<string, unknown>>(Subjects.admin.channelSetMode, {
      guildId: h.guildId,
      channelId,
      mode: 'report',
    });
    expect(report).toMatchObject({ mode: 'report', tmState: 'dead', currentSpeaker: null });
    const check = await h.relay.checkTurn({
      guildId: h.guildId,
      channelId,
      agentId: agents[0].agentId,
    });
    expect(check.allowed).toBe(false);
  });
});
