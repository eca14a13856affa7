import { evaluateCheckTurn } from './queries';
import { speakerTimerKey, typingHoldTimerKey } from './react';
import { matchesTail, tailFingerprint } from './rules';
import type { ChannelCommand } from './commands';
import {
  ALICE,
  BOB,
  CAROL,
  CHANNEL,
  chatWorld,
  discussionWorld,
  HUMAN,
  OTHER_BOT,
  types,
  type ChannelWorld,
} from '../../testing/channel-world';

const T0 = Date.parse('2026-11-23T12:00:00Z');
const DISCORD_EPOCH = 1420070400000;
/** A Discord snowflake created at `ms`. */
const snowflakeAt = (ms: number, n = 0): string =>
  String((BigInt(ms - DISCORD_EPOCH) << 22n) + BigInt(n));

const three = (config = {}) => chatWorld([ALICE, BOB, CAROL], { shuffle: false, config });

/** A message command at time `ms`, with a snowflake of that time. */
function at(
  ms: number,
  authorId: string,
  content: string,
  extra: Partial<Extract<ChannelCommand, { type: 'ObserveMessage' }>['data']> = {},
  n = 0,
): ChannelCommand {
  return {
    type: 'ObserveMessage',
    at: ms,
    data: {
      messageId: snowflakeAt(ms, n),
      authorId,
      authorIsBot: authorId !== HUMAN,
      content,
      isModerator: false,
      ...extra,
    },
  };
}

/** A chat of three woken by a human at T0: alice holds turn 1, granted at T0. */
function wokenAtT0(config = {}): ChannelWorld {
  const w = three(config);
  w.ok(at(T0, HUMAN, 'hi all'));
  return w;
}

describe('completions are fenced by turn', () => {
  it('given an open turn, when a completion names another turnId, then nothing happens', () => {
    const w = wokenAtT0();
    const out = w.run({
      type: 'CompleteTurn',
      data: { agentId: 'alice', runId: 'r1', text: 'x', turnId: `${CHANNEL}:0` },
    });
    expect(out.events).toEqual([]);
    expect(out.error).toBeNull();
  });

  it('given a grant at T0, a completion without turnId published before it is ignored', () => {
    const w = wokenAtT0();
    expect(w.state.currentTurn?.grantedAt).toBe(T0);
    const stale = w.run({
      type: 'CompleteTurn',
      data: { agentId: 'alice', runId: 'r1', text: 'old', publishedAt: T0 - 1 },
    });
    expect(stale.events).toEqual([]);
    const fresh = w.run({
      type: 'CompleteTurn',
      data: { agentId: 'alice', runId: 'r2', text: 'NO_REPLY', publishedAt: T0 + 5 },
    });
    expect(types(fresh.events)).toEqual(['TurnCompleted', 'TurnGranted']);
  });

  it('a message sent before the grant never counts as its delivery', () => {
    const w = three();
    // The human wrote at T0; the grant was decided 100 ms later.
    w.ok({ ...at(T0, HUMAN, 'hi all'), at: T0 + 100 });
    w.ok({
      type: 'CompleteTurn',
      at: T0 + 200,
      data: { agentId: 'alice', runId: 'r', text: 'the answer' },
    });
    const early = w.ok(
      at(T0 + 50, ALICE.discordUserId, 'the answer', { agentIdOfAuthor: 'alice' }),
    );
    expect(types(early.events)).toEqual(['MessageSeen']);
    expect(w.state.currentTurn?.phase).toBe('awaiting-delivery');
    const real = w.ok(
      at(T0 + 300, ALICE.discordUserId, 'the answer', { agentIdOfAuthor: 'alice' }),
    );
    expect(types(real.events)).toEqual(['MessageSeen', 'DeliveryConfirmed', 'TurnGranted']);
  });
});

describe('explicit delivery confirmations', () => {
  it('a confirmation naming a message sent before the grant is ignored', () => {
    const w = three();
    w.ok({ ...at(T0, HUMAN, 'hi all'), at: T0 + 100 });
    w.ok({ type: 'CompleteTurn', at: T0 + 200, data: { agentId: 'alice', runId: 'r', text: 'x' } });
    const turnId = `${CHANNEL}:1`;
    const early = w.ok({
      type: 'ConfirmDelivery',
      data: { turnId, messageId: snowflakeAt(T0 + 50) },
    });
    expect(early.events).toEqual([]);
    const late = w.ok({
      type: 'ConfirmDelivery',
      data: { turnId, messageId: snowflakeAt(T0 + 300) },
    });
    expect(types(late.events)).toEqual(['DeliveryConfirmed', 'TurnGranted']);
  });
});

describe('speaker timeout', () => {
  const cfg = { speakerTimeoutMs: 60000 };

  it('a grant arms the speaker timer, keyed by turn', () => {
    const w = three(cfg);
    const { effects } = w.ok(at(T0, HUMAN, 'hi'));
    expect(effects).toContainEqual({
      kind: 'schedule',
      key: speakerTimerKey(`${CHANNEL}:1`),
      afterMs: 60000,
      channelId: CHANNEL,
      command: { type: 'SpeakerTimeout', data: { turnId: `${CHANNEL}:1` } },
    });
  });

  it('when it fires for the running turn, the speaker is skipped with a notice', () => {
    const w = wokenAtT0(cfg);
    const { events, effects } = w.ok({
      type: 'SpeakerTimeout',
      at: T0 + 60000,
      data: { turnId: `${CHANNEL}:1` },
    });
    expect(types(events)).toEqual(['TurnSkipped', 'TurnGranted']);
    expect(events[0].data).toMatchObject({ agentId: 'alice', reason: 'speaker-timeout' });
    expect(events[1].data).toMatchObject({ agentId: 'bob', reason: 'speaker-timeout' });
    expect(effects).toContainEqual(
      expect.objectContaining({ kind: 'send-message', purpose: 'notice' }),
    );
    expect(evaluateCheckTurn(w.state, 'bob').allowed).toBe(true);
  });

  it('the last speaker timing out starts the next cycle with the same reason', () => {
    const w = three(cfg);
    w.human();
    w.speak('from alice');
    w.speak('from bob');
    const { events } = w.ok({ type: 'SpeakerTimeout', data: { turnId: `${CHANNEL}:3` } });
    expect(events.find((e) => e.type === 'TurnGranted')?.data).toMatchObject({
      agentId: 'alice',
      cycle: 2,
      reason: 'speaker-timeout',
    });
  });

  it('a stale timer (another turn, or a reply being delivered) changes nothing', () => {
    const w = wokenAtT0(cfg);
    expect(w.ok({ type: 'SpeakerTimeout', data: { turnId: `${CHANNEL}:9` } }).events).toEqual([]);
    w.complete('alice', 'a reply');
    expect(w.ok({ type: 'SpeakerTimeout', data: { turnId: `${CHANNEL}:1` } }).events).toEqual([]);
  });

  it('completing cancels the timer; posting re-arms it', () => {
    const w = wokenAtT0(cfg);
    const posted = w.ok(
      at(T0 + 10, ALICE.discordUserId, 'thinking…', { agentIdOfAuthor: 'alice' }),
    );
    expect(posted.effects).toContainEqual(
      expect.objectContaining({ kind: 'schedule', key: speakerTimerKey(`${CHANNEL}:1`) }),
    );
    expect(w.complete('alice', 'NO_REPLY').effects).toContainEqual({
      kind: 'cancel',
      key: speakerTimerKey(`${CHANNEL}:1`),
    });
  });

  it('0 turns it off', () => {
    const w = three({ speakerTimeoutMs: 0 });
    expect(w.ok(at(T0, HUMAN, 'hi')).effects.some((e) => e.kind === 'schedule')).toBe(false);
  });

  it('admin advance skips the current speaker now', () => {
    const w = wokenAtT0();
    const { events, effects } = w.ok({ type: 'AdvanceTurn', data: { requestedBy: 'ops' } });
    expect(types(events)).toEqual(['TurnSkipped', 'TurnGranted']);
    expect(events[0].data).toMatchObject({ reason: 'admin-advance', requestedBy: 'ops' });
    expect(events[1].data).toMatchObject({ agentId: 'bob', reason: 'admin-advance' });
    expect(effects).toContainEqual(
      expect.objectContaining({ purpose: 'notice', content: "alice's turn was skipped by ops." }),
    );
  });

  it('admin advance on a dormant channel grants its first speaker', () => {
    const w = three();
    const { events } = w.ok({ type: 'AdvanceTurn', data: {} });
    expect(events[0]).toMatchObject({
      type: 'TurnGranted',
      data: { agentId: 'alice', reason: 'admin-advance' },
    });
  });
});

describe('fresh cycles continue the rotation', () => {
  it('the multi-message end marker wakes the agent after the last speaker', () => {
    const w = three();
    w.human();
    w.speak('alice says');
    w.human('↗️');
    const { events } = w.human('↙️ done');
    const granted = events.find((e) => e.type === 'TurnGranted');
    expect(granted?.data).toMatchObject({ agentId: 'bob', reason: 'multi-message-end' });
    expect(w.speakers()).toEqual(['bob', 'carol', 'alice']);
  });

  it('a human mentioning an agent wakes that agent first', () => {
    const w = three();
    const { events } = w.ok(at(T0, HUMAN, 'hey <@1003>', { mentions: [CAROL.discordUserId] }));
    expect(events.find((e) => e.type === 'TurnGranted')?.data).toMatchObject({
      agentId: 'carol',
      reason: 'wake',
    });
    w.pass();
    expect(w.speaker()).toBe('alice');
  });
});

describe('who may wake or interrupt', () => {
  it('a webhook (feed) never wakes a dormant channel nor cancels a delivery wait', () => {
    const w = three();
    expect(types(w.ok(at(T0, '4001', 'news', { isWebhook: true })).events)).toEqual([
      'MessageSeen',
    ]);
    w.ok(at(T0 + 1, HUMAN, 'hi'));
    w.complete('alice', 'answer');
    w.ok(at(T0 + 2, '4001', 'more news', { isWebhook: true }));
    expect(w.state.currentTurn?.phase).toBe('awaiting-delivery');
  });

  it('an allow-listed bot does', () => {
    const w = three({ botAllowlist: [OTHER_BOT] });
    expect(types(w.ok(at(T0, OTHER_BOT, 'ping')).events)).toContain('TurnGranted');
  });

  it('archived notices: at most one per channel per minute', () => {
    const w = discussionWorld([ALICE, BOB]);
    w.ok({ type: 'CompleteDiscussion', data: { callerAgentId: 'alice', summary: 'We chose X.' } });
    const first = w.ok(at(T0, HUMAN, 'hello?'));
    expect(first.events[0].data).toMatchObject({ reaction: 'archived-notice' });
    expect(w.ok(at(T0 + 30000, HUMAN, 'anyone?')).effects).toEqual([]);
    expect(w.ok(at(T0 + 60000, HUMAN, 'still?')).effects).toHaveLength(1);
  });

  it('a discussion without humans rests at its cap and asks the initiator to conclude', () => {
    const w = discussionWorld([ALICE, BOB], { config: { maxDiscussionCyclesWithoutHuman: 2 } });
    w.speak('a1');
    w.speak('b1');
    w.speak('a2');
    const { events, effects } = w.speak('b2');
    expect(events.find((e) => e.type === 'WentDormant')?.data).toMatchObject({
      reason: 'loop-breaker',
    });
    expect(effects).toContainEqual(
      expect.objectContaining({
        purpose: 'discussion-reminder',
        content: expect.stringContaining('call discussion-complete'),
      }),
    );
  });
});

describe('discussion-complete with the summary text', () => {
  it('archives and posts the text to the callback channel', () => {
    const w = discussionWorld([ALICE, BOB]);
    const { events, effects } = w.ok({
      type: 'CompleteDiscussion',
      data: { callerAgentId: 'alice', summary: 'We chose X.' },
    });
    expect(events.at(-1)).toEqual({
      type: 'DiscussionArchived',
      data: { callerAgentId: 'alice', summaryPath: null, summary: 'We chose X.' },
    });
    expect(effects).toContainEqual(
      expect.objectContaining({
        channelId: '601',
        content: expect.stringContaining('We chose X.'),
      }),
    );
    expect(w.state.discussion?.summary).toBe('We chose X.');
  });

  it('needs one of path or text', () => {
    const w = discussionWorld([ALICE, BOB]);
    expect(
      w.run({ type: 'CompleteDiscussion', data: { callerAgentId: 'alice' } }).error?.code,
    ).toBe('BAD_REQUEST');
  });
});

describe('members', () => {
  it('a disabled channel starts rotating when a second agent arrives', () => {
    const w = chatWorld([ALICE]);
    expect(w.state.tmState).toBe('disabled');
    w.ok({ type: 'RefreshMembers', data: { agents: [ALICE, BOB] } });
    expect(w.state.tmState).toBe('normal');
    expect(w.state.dormant).toBe(true);
  });

  it('re-setting the same mode applies the members it brings', () => {
    const w = chatWorld([ALICE]);
    const { events } = w.ok({
      type: 'SetMode',
      data: { guildId: '500', mode: 'chat', agents: [ALICE, BOB] },
    });
    expect(types(events)).toEqual(['MembersRefreshed', 'SpeakerListRebuilt', 'WentDormant']);
    expect(w.state.tmState).toBe('normal');
  });
});

describe('tail matching normalises both sides', () => {
  it.each([
    ['see you @Bob', 'see you <@1002>'],
    ['nice :party:', 'nice <:party:123456>'],
    ['a  b\n c', 'a b c'],
    ['hi <@!1002>', 'hi @Bob'],
  ])('%j matches %j', (reply, delivered) => {
    expect(matchesTail(delivered, tailFingerprint(reply, 40))).toBe(true);
  });
});

describe('typing holds the next grant', () => {
  it('a typing human holds the grant until their message or the timer', () => {
    const w = wokenAtT0();
    const hold = w.ok({ type: 'TypingStarted', at: T0 + 100, data: { userId: HUMAN } });
    expect(hold.effects).toEqual([
      {
        kind: 'schedule',
        key: typingHoldTimerKey(CHANNEL),
        afterMs: 8000,
        channelId: CHANNEL,
        command: { type: 'TypingHoldExpired', data: { until: T0 + 8100 } },
      },
    ]);
    const held = w.ok({
      type: 'CompleteTurn',
      at: T0 + 200,
      data: { agentId: 'alice', runId: 'r', text: 'NO_REPLY' },
    });
    expect(types(held.events)).toEqual(['TurnCompleted', 'GrantHeld']);
    expect(w.speaker()).toBeNull();
    const released = w.ok({ type: 'TypingHoldExpired', at: T0 + 8100, data: { until: T0 + 8100 } });
    expect(types(released.events)).toEqual(['TypingHoldEnded', 'TurnGranted']);
    expect(w.speaker()).toBe('bob');
  });

  it("the typer's message ends the hold and the held grant goes out", () => {
    const w = wokenAtT0();
    w.ok({ type: 'TypingStarted', at: T0 + 100, data: { userId: HUMAN } });
    w.ok({
      type: 'CompleteTurn',
      at: T0 + 200,
      data: { agentId: 'alice', runId: 'r', text: 'NO_REPLY' },
    });
    const { events } = w.ok(at(T0 + 300, HUMAN, 'my two cents'));
    expect(types(events)).toEqual(['MessageSeen', 'TypingHoldEnded', 'TurnGranted']);
    expect(w.speaker()).toBe('bob');
  });

  it("an agent's typing holds nothing", () => {
    const w = wokenAtT0();
    expect(
      w.ok({ type: 'TypingStarted', at: T0, data: { userId: BOB.discordUserId } }).events,
    ).toEqual([]);
  });
});
