import { describeChannel, evaluateCheckTurn } from './queries';
import {
  ALICE,
  BOB,
  CAROL,
  CHANNEL,
  chatWorld,
  discussionWorld,
  GUILD,
  types,
} from '../../testing/channel-world';

describe('discussions', () => {
  it('creation posts the guide and grants the first speaker at once', () => {
    const w = discussionWorld([ALICE, BOB, CAROL], { shuffle: false });
    expect(types(w.log)).toEqual([
      'ShuffleOverrideSet',
      'ChannelCreated',
      'DiscussionCreated',
      'MembersRefreshed',
      'SpeakerListRebuilt',
      'TurnGranted',
    ]);
    expect(w.log[5].data).toMatchObject({ agentId: 'alice', cycle: 1, reason: 'discussion-start' });
    expect(w.state.mode).toBe('discussion');
    expect(describeChannel(w.state).discussion).toMatchObject({
      initiatorAgentId: 'alice',
      callbackGuildId: '501',
      callbackChannelId: '601',
      status: 'open',
    });
  });

  it('a one-agent discussion is disabled: the guide alone lets it speak', () => {
    const w = discussionWorld([ALICE]);
    expect(w.state.tmState).toBe('disabled');
    expect(w.log.some((e) => e.type === 'TurnGranted')).toBe(false);
  });

  it('going dormant reminds the initiator and lets it through check-turn', () => {
    const w = discussionWorld([ALICE, BOB], { initiator: BOB });
    w.pass();
    const { events, effects } = w.pass();
    expect(types(events)).toContain('WentDormant');
    expect(effects).toContainEqual({
      kind: 'send-message',
      purpose: 'discussion-reminder',
      guildId: GUILD,
      channelId: CHANNEL,
      content: `<@${BOB.discordUserId}> Discussion is idle. Please summarize and call discussion-complete.`,
      deleteAfterSend: false,
    });
    expect(evaluateCheckTurn(w.state, 'bob')).toMatchObject({
      allowed: true,
      reason: 'discussion-initiator',
    });
    expect(evaluateCheckTurn(w.state, 'alice').allowed).toBe(false);
  });

  it('the loop breaker does not apply to discussions', () => {
    const w = discussionWorld([ALICE, BOB], { config: { maxCyclesWithoutHuman: 1 } });
    for (let i = 0; i < 6; i++) w.speak(`point ${i}`);
    expect(w.state.dormant).toBe(false);
    expect(w.state.cycle).toBe(4);
  });

  it('only the initiator may complete it', () => {
    const w = discussionWorld([ALICE, BOB]);
    const out = w.run({
      type: 'CompleteDiscussion',
      data: { callerAgentId: 'bob', summaryPath: 'discussion-summary/x.md' },
    });
    expect(out.error?.code).toBe('FORBIDDEN');
    expect(out.events).toEqual([]);
  });

  it('completion archives it, posts the summary to the callback channel, seals the channel', () => {
    const w = discussionWorld([ALICE, BOB]);
    const { events, effects } = w.ok({
      type: 'CompleteDiscussion',
      data: { callerAgentId: 'alice', summaryPath: '/ws/discussion-summary/naming.md' },
    });
    expect(types(events)).toEqual(['TurnCancelled', 'DiscussionArchived']);
    expect(effects).toContainEqual({
      kind: 'send-message',
      purpose: 'discussion-summary',
      guildId: '501',
      channelId: '601',
      content: `Discussion <#${CHANNEL}> is complete. Summary: /ws/discussion-summary/naming.md`,
      deleteAfterSend: false,
    });
    expect(w.state.tmState).toBe('archived');
    expect(evaluateCheckTurn(w.state, 'alice')).toMatchObject({
      allowed: false,
      reason: 'channel-archived',
    });
    expect(w.complete('alice', 'NO_REPLY').events).toEqual([]);
  });

  it('every later message gets the archived notice (archived beats multi-message)', () => {
    const w = discussionWorld([ALICE, BOB]);
    w.ok({ type: 'CompleteDiscussion', data: { callerAgentId: 'alice', summaryPath: 'p' } });
    for (const out of [w.human('anyone?'), w.post(BOB, 'hello?'), w.human('↗️')]) {
      expect(out.events[0].data).toMatchObject({ reaction: 'archived-notice' });
      expect(out.effects).toEqual([
        expect.objectContaining({
          purpose: 'archived-notice',
          content: 'This discussion is closed.',
          channelId: CHANNEL,
        }),
      ]);
    }
    expect(w.state.multiMessage).toBe(false);
    expect(w.moderator('This discussion is closed.').effects).toEqual([]);
  });

  it('a repeated completion is a no-op; archived ignores member refreshes', () => {
    const w = discussionWorld([ALICE, BOB]);
    const cmd = {
      type: 'CompleteDiscussion',
      data: { callerAgentId: 'alice', summaryPath: 'p' },
    } as const;
    w.ok(cmd);
    expect(w.ok(cmd).events).toEqual([]);
    expect(w.ok({ type: 'RefreshMembers', data: { agents: [ALICE] } }).events).toEqual([]);
  });

  it('completing a channel that is not a discussion is refused', () => {
    const w = chatWorld([ALICE, BOB]);
    expect(
      w.run({ type: 'CompleteDiscussion', data: { callerAgentId: 'alice', summaryPath: 'p' } })
        .error?.code,
    ).toBe('NOT_A_DISCUSSION');
  });

  it('creation validates the callback and is idempotent for the same initiator', () => {
    const w = discussionWorld([ALICE, BOB]);
    const again = w.run({
      type: 'CreateDiscussion',
      data: {
        guildId: GUILD,
        agents: [ALICE, BOB],
        initiatorAgentId: 'alice',
        callbackGuildId: '501',
        callbackChannelId: '601',
        guide: 'g',
        participants: [],
      },
    });
    expect(again).toMatchObject({ error: null, events: [] });
    const fresh = chatWorld([]);
    const bad = fresh.run({
      type: 'CreateDiscussion',
      data: {
        guildId: GUILD,
        agents: [],
        initiatorAgentId: 'alice',
        callbackGuildId: '',
        callbackChannelId: '601',
        guide: 'g',
        participants: [],
      },
    });
    expect(bad.error).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'callbackGuildId' } });
  });
});
