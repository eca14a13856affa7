import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Subjects, subject } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from './harness';

describe('turn coordinator: a discussion from creation to archive', () => {
  let h: Harness;
  let initiator: Agent;
  let participants: Agent[];
  let channelId: string;
  const callbackChannelId = snowflake();
  const human = snowflake();

  beforeAll(async () => {
    h = await Harness.start();
    [initiator, ...participants] = makeAgents(3, 'disc');
    await h.register([initiator, ...participants]);
    h.fake.setMembers(callbackChannelId, [
      { userId: initiator.userId, isBot: true },
      { userId: human, isBot: false },
    ]);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('creates a private discussion, posts the guide and grants the first speaker', async () => {
    const grants = await h.grants();
    await h.runAgents(undefined, [initiator, ...participants], () => 'NO_REPLY');
    const unusable = await h.request(subject.tool('create-discussion-channel'), {
      callerAgentId: initiator.agentId,
      callbackGuildId: h.guildId,
      callbackChannelId: snowflake(),
      guide: 'Topic: nothing',
      participants: participants.map((p) => p.userId),
    });
    expect(unusable).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });

    ({ channelId } = await h.create(subject.tool('create-discussion-channel'), {
      callerAgentId: initiator.agentId,
      callbackGuildId: h.guildId,
      callbackChannelId,
      guide: 'Topic: naming the release. Goal: one name. Done when everyone agrees.',
      participants: participants.map((p) => p.userId),
    }));
    const created = h.fake.created.find((c) => c.channelId === channelId)!;
    expect(created.memberIds).toEqual(
      expect.arrayContaining([initiator.userId, ...participants.map((p) => p.userId)]),
    );
    await waitFor(() => h.fake.sentTo(channelId, 'discussion-guide').length === 1, 10_000);
    expect(h.fake.sentTo(channelId, 'discussion-guide')[0].content).toContain('naming the release');

    // Everyone passes: the discussion rests and the initiator is reminded to wrap it up.
    await waitFor(() => h.fake.sentTo(channelId, 'discussion-reminder').length === 1, 15_000);
    const inChannel = grants.filter((g) => g.channelId === channelId);
    expect(inChannel[0].reason).toBe('discussion-start');
    expect(inChannel).toHaveLength(3);
    expect(h.fake.sentTo(channelId, 'discussion-reminder')[0].content).toContain(
      `<@${initiator.userId}>`,
    );
    const view = await h.channel(channelId);
    expect(view).toMatchObject({
      mode: 'discussion',
      tmState: 'shuffle',
      dormant: true,
      discussion: { initiatorAgentId: initiator.agentId, archived: false, callbackChannelId },
    });
    const initiatorCheck = await h.relay.checkTurn({
      guildId: h.guildId,
      channelId,
      agentId: initiator.agentId,
    });
    expect(initiatorCheck.allowed).toBe(true);
  });

  it('keeps the discussion mode locked', async () => {
    const reply = await h.request(Subjects.admin.channelSetMode, {
      guildId: h.guildId,
      channelId,
      mode: 'chat',
    });
    expect(reply).toMatchObject({ ok: false, error: { code: 'MODE_LOCKED' } });
  });

  it('lets only the initiator complete it, with a summary inside the workspace', async () => {
    const dir = join(h.workspace, 'discussion-summary');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'release-name.md'), '# Summary\nWe chose "Aurora".\n');
    writeFileSync(join(h.workspace, 'secret.txt'), 'not a summary');
    symlinkSync(join(h.workspace, 'secret.txt'), join(dir, 'sneaky.md'));
    const complete = (callerAgentId: string, summaryPath: string) =>
      h.request(subject.tool('discussion-complete'), {
        callerAgentId,
        discussionChannelId: channelId,
        summaryPath,
      });

    expect(
      await complete(participants[0].agentId, 'discussion-summary/release-name.md'),
    ).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    for (const bad of [
      'discussion-summary/../secret.txt',
      '../discussion-summary/release-name.md',
      join(h.workspace, 'secret.txt'),
      '/etc/hostname',
      'discussion-summary/sneaky.md',
      'discussion-summary/missing.md',
      'discussion-summary',
    ]) {
      const reply = await complete(initiator.agentId, bad);
      expect({ bad, reply }).toMatchObject({
        bad,
        reply: { ok: false, error: { code: 'BAD_REQUEST' } },
      });
    }
    expect((await h.channel(channelId)).tmState).toBe('shuffle');

    const done = await complete(initiator.agentId, join(dir, 'release-name.md'));
    expect(done).toEqual({ ok: true, data: {} });
    const view = await h.channel(channelId);
    expect(view).toMatchObject({
      tmState: 'archived',
      currentSpeaker: null,
      discussion: { archived: true, summaryPath: join(dir, 'release-name.md') },
    });
    await waitFor(
      () => h.fake.sentTo(callbackChannelId, 'discussion-summary').length === 1,
      10_000,
    );
    expect(h.fake.sentTo(callbackChannelId, 'discussion-summary')[0].content).toContain(
      join(dir, 'release-name.md'),
    );
  });

  it('answers every later message with the closed notice and lets nobody speak', async () => {
    await h.fake.post(h.guildId, channelId, human, 'one more thing', false);
    await waitFor(() => h.fake.sentTo(channelId, 'archived-notice').length === 1, 10_000);
    expect(h.fake.sentTo(channelId, 'archived-notice')[0].content).toBe(
      'This discussion is closed.',
    );
    const check = await h.relay.checkTurn({
      guildId: h.guildId,
      channelId,
      agentId: participants[0].agentId,
    });
    expect(check).toMatchObject({ allowed: false, tmState: 'archived' });
  });
});
