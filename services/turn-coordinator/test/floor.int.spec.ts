import { Subjects, subject } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { nextSnowflake } from './fake-ingest';
import { Harness, makeAgents, type Agent } from './harness';

/** Speaker timeout, admin advance, who may wake, members arriving, summary text. */
describe('turn coordinator: the floor never stalls', () => {
  let h: Harness;
  let agents: Agent[];
  const human = snowflake();

  beforeAll(async () => {
    h = await Harness.start({
      DIRIGENT_SPEAKER_TIMEOUT_MS: '2500',
      DIRIGENT_TYPING_HOLD_MS: '2000',
    });
    agents = makeAgents(3, 'floor');
    await h.register(agents);
  });

  afterAll(async () => {
    await h?.close();
  });

  const chat = async (name: string, members: Agent[]) =>
    (
      await h.create(subject.tool('create-chat-channel'), {
        callerAgentId: members[0].agentId,
        guildId: h.guildId,
        name,
        participants: members.slice(1).map((a) => a.userId),
      })
    ).channelId;

  it('skips a silent speaker with a notice; the next grant says why', async () => {
    const channelId = await chat('silent', agents.slice(0, 2));
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, human, 'anyone?', false);
    await waitFor(() => grants.length === 2, 10_000, 25, 'the grant after the timeout');
    expect(grants[1]).toMatchObject({ agentId: agents[1].agentId, reason: 'speaker-timeout' });
    const notice = await waitFor(() => h.fake.sentTo(channelId, 'notice')[0], 5_000);
    expect(notice.content).toContain(agents[0].agentId);
  });

  it('admin advance skips the current speaker now and answers with the view', async () => {
    const channelId = await chat('advance', agents);
    await h.fake.post(h.guildId, channelId, human, 'go', false);
    const first = await waitFor(async () => (await h.channel(channelId)).currentSpeaker, 10_000);
    const view = await h.ok<Record<string, unknown>>(Subjects.admin.channelAdvance, {
      channelId,
      requestedBy: 'ops',
    });
    expect(view.currentSpeaker).not.toBe(first);
    expect(view.currentSpeaker).toEqual(expect.any(String));
    await waitFor(() => h.fake.sentTo(channelId, 'notice').length > 0, 5_000);
    expect(h.fake.sentTo(channelId, 'notice')[0].content).toContain('skipped by ops');
  });

  it('a webhook (feed) neither wakes a dormant channel nor is an agent', async () => {
    const channelId = await chat('feed', agents.slice(0, 2));
    await waitFor(async () => (await h.channel(channelId)).dormant, 10_000);
    await h.messaging.publishEvent(
      subject.discordEvent(h.guildId, channelId, 'message.created'),
      'message.created',
      {
        guildId: h.guildId,
        channelId,
        messageId: nextSnowflake(),
        authorId: snowflake(),
        authorIsBot: true,
        webhookId: snowflake(),
        content: 'RSS: news',
        createdAt: new Date().toISOString(),
      },
    );
    // A later human message is processed after it (same channel, in order).
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, human, 'hi', false);
    await waitFor(() => grants.length >= 1, 10_000);
    expect(grants[0].reason).toBe('wake');
  });

  it('a disabled channel starts rotating when a second agent joins', async () => {
    const [a, b] = agents;
    const channelId = await chat('lonely', [a]);
    expect(await h.channel(channelId)).toMatchObject({ tmState: 'disabled' });
    await h.fake.join(h.guildId, channelId, { userId: b.userId, isBot: true });
    await waitFor(
      async () => (await h.channel(channelId)).tmState === 'normal',
      10_000,
      50,
      'rotation after the join',
    );
  });

  it('discussion-complete takes the summary text', async () => {
    const [a, b] = agents;
    const callbackChannelId = snowflake();
    h.fake.setMembers(callbackChannelId, [{ userId: a.userId, isBot: true }]);
    const { channelId } = await h.create(subject.tool('create-discussion-channel'), {
      callerAgentId: a.agentId,
      callbackGuildId: h.guildId,
      callbackChannelId,
      guide: 'Pick a name.',
      participants: [b.userId],
    });
    await h.ok(subject.tool('discussion-complete'), {
      callerAgentId: a.agentId,
      discussionChannelId: channelId,
      summary: 'We picked "Ada".',
    });
    const posted = await waitFor(
      () => h.fake.sentTo(callbackChannelId, 'discussion-summary')[0],
      10_000,
    );
    expect(posted.content).toContain('We picked "Ada".');
  });

  it('a human mentioning an agent wakes that agent first', async () => {
    const channelId = await chat('mention', agents);
    await waitFor(async () => (await h.channel(channelId)).dormant, 10_000);
    const grants = await h.grants(channelId);
    await h.messaging.publishEvent(
      subject.discordEvent(h.guildId, channelId, 'message.created'),
      'message.created',
      {
        guildId: h.guildId,
        channelId,
        messageId: nextSnowflake(),
        authorId: human,
        authorIsBot: false,
        content: `<@${agents[2].userId}> what do you think?`,
        mentions: [agents[2].userId],
        createdAt: new Date().toISOString(),
      },
    );
    await waitFor(() => grants.length >= 1, 10_000);
    expect(grants[0]).toMatchObject({ agentId: agents[2].agentId, reason: 'wake' });
  });

  it('a human typing holds the next grant until the hold runs out', async () => {
    const [a, b] = agents;
    const channelId = await chat('typing', [a, b]);
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, human, 'go', false);
    await waitFor(() => grants.length === 1, 10_000);
    await h.messaging.publishEvent(
      subject.discordEvent(h.guildId, channelId, 'typing.started'),
      'typing',
      { guildId: h.guildId, channelId, userId: human, at: new Date().toISOString() },
    );
    // Discord events of a channel are handled in order: once this is seen, so is the typing.
    const after = await h.fake.post(h.guildId, channelId, h.fake.moderatorId, '…');
    await h.relay.checkTurn({
      guildId: h.guildId,
      channelId,
      agentId: a.agentId,
      messageId: after,
    });
    const completedAt = Date.now();
    await h.relay.completeTurn({
      guildId: h.guildId,
      channelId,
      agentId: grants[0].agentId,
      runId: `typing-${completedAt}`,
      text: 'NO_REPLY',
      turnId: grants[0].turnId,
    });
    await waitFor(() => grants.length === 2, 10_000, 25, 'the held grant');
    expect(Date.now() - completedAt).toBeGreaterThanOrEqual(1000);
  });
});
