import { evaluateCheckTurn, hasSeenMessage } from './queries';
import { deliveryTimerKey } from './react';
import {
  ALICE,
  BOB,
  CAROL,
  CHANNEL,
  chatWorld,
  given,
  HUMAN,
  MODERATOR,
  OTHER_BOT,
  types,
} from '../../testing/channel-world';

const three = () => chatWorld([ALICE, BOB, CAROL], { shuffle: false });

describe('start and wake', () => {
  it('a new chat channel rests until the first message', () => {
    const w = three();
    expect(w.state.dormant).toBe(true);
    expect(w.speaker()).toBeNull();
    expect(evaluateCheckTurn(w.state, 'alice')).toMatchObject({
      allowed: false,
      reason: 'dormant',
    });
  });

  it("the moderator's own messages never wake the channel", () => {
    const w = three();
    expect(types(w.moderator().events)).toEqual(['MessageSeen']);
    expect(w.state.dormant).toBe(true);
  });

  it('a human message wakes it: the first speaker is granted a new cycle', () => {
    const w = three();
    const { events } = w.human('hi all');
    expect(types(events)).toEqual(['MessageSeen', 'Woke', 'TurnGranted']);
    expect(events[2]).toEqual({
      type: 'TurnGranted',
      data: {
        turnId: `${CHANNEL}:1`,
        agentId: 'alice',
        discordUserId: ALICE.discordUserId,
        cycle: 1,
        position: 0,
        reason: 'wake',
        anchorMessageId: (events[0].data as { messageId: string }).messageId,
      },
    });
  });

  it("an agent's message (through the message tool) wakes it; an unregistered bot's does not", () => {
    const a = three();
    expect(types(a.post(BOB, 'fyi').events)).toContain('TurnGranted');
    const b = three();
    expect(types(b.ok(b.message(OTHER_BOT, 'beep', { bot: true })).events)).toEqual([
      'MessageSeen',
    ]);
  });

  it('turn ids are deterministic and increase per grant', () => {
    const w = three();
    w.human();
    w.pass();
    w.pass();
    expect(w.log.filter((e) => e.type === 'TurnGranted').map((e) => e.data)).toMatchObject([
      { turnId: `${CHANNEL}:1`, agentId: 'alice', reason: 'wake' },
      { turnId: `${CHANNEL}:2`, agentId: 'bob', reason: 'advance' },
      { turnId: `${CHANNEL}:3`, agentId: 'carol', reason: 'advance' },
    ]);
  });

  it('redelivered messages (same or older id) are ignored', () => {
    const w = three();
    const cmd = w.message(HUMAN, 'hi');
    w.ok(cmd);
    expect(w.ok(cmd).events).toEqual([]);
  });
});

describe('given stored events', () => {
  it('given a dormant two-agent chat, when a human speaks, then bob (listed first) is granted', () => {
    const { events } = given(
      {
        type: 'ChannelCreated',
        data: { channelId: CHANNEL, guildId: '500', mode: 'chat', createdByAgentId: null },
      },
      { type: 'MembersRefreshed', data: { members: [BOB, ALICE], joined: [], left: [] } },
      {
        type: 'SpeakerListRebuilt',
        data: {
          reason: 'created',
          speakers: [BOB, ALICE],
          added: ['bob', 'alice'],
          removed: [],
          tmState: 'normal',
          shuffled: false,
          seed: null,
          avoidFirst: null,
        },
      },
      { type: 'WentDormant', data: { reason: 'start', cycle: 0, cyclesWithoutHuman: 0 } },
    ).when({
      type: 'ObserveMessage',
      data: {
        messageId: '700',
        authorId: HUMAN,
        authorIsBot: false,
        content: 'morning',
        isModerator: false,
      },
    });
    expect(events).toEqual([
      {
        type: 'MessageSeen',
        data: {
          messageId: '700',
          authorId: HUMAN,
          authorKind: 'human',
          agentId: null,
          tail: null,
          reaction: 'none',
        },
      },
      { type: 'Woke', data: { byMessageId: '700', authorKind: 'human' } },
      {
        type: 'TurnGranted',
        data: {
          turnId: `${CHANNEL}:1`,
          agentId: 'bob',
          discordUserId: BOB.discordUserId,
          cycle: 1,
          position: 0,
          reason: 'wake',
          anchorMessageId: '700',
        },
      },
    ]);
  });
});

describe('check-turn', () => {
  it('in normal rotation only the current speaker is allowed', () => {
    const w = three();
    w.human();
    expect(evaluateCheckTurn(w.state, 'alice')).toMatchObject({
      allowed: true,
      currentSpeaker: 'alice',
      tmState: 'normal',
      mode: 'chat',
      dormant: false,
      multiMessage: false,
      turnId: `${CHANNEL}:1`,
    });
    expect(evaluateCheckTurn(w.state, 'bob')).toMatchObject({
      allowed: false,
      currentSpeaker: 'alice',
      reason: 'not-current-speaker',
    });
  });

  it('records the latest seen message as the anchor, once per turn', () => {
    const w = three();
    w.human('first');
    const later = w.human('second');
    const latest = (later.events[0].data as { messageId: string }).messageId;
    const { events } = w.ok({ type: 'CheckTurn', data: { agentId: 'alice' } });
    expect(events).toEqual([
      {
        type: 'TurnAnchorRecorded',
        data: { turnId: `${CHANNEL}:1`, agentId: 'alice', anchorMessageId: latest },
      },
    ]);
    w.human('third');
    expect(w.ok({ type: 'CheckTurn', data: { agentId: 'alice' } }).events).toEqual([]);
    expect(w.state.currentTurn?.anchorMessageId).toBe(latest);
  });

  it('a check by anyone else records nothing', () => {
    const w = three();
    w.human();
    expect(w.ok({ type: 'CheckTurn', data: { agentId: 'bob' } }).events).toEqual([]);
  });

  it('is causally consistent: hasSeenMessage tells the service whether to wait', () => {
    const w = three();
    const cmd = w.message(HUMAN, 'hi');
    const id = (cmd.data as { messageId: string }).messageId;
    expect(hasSeenMessage(w.state, id)).toBe(false);
    w.ok(cmd);
    expect(hasSeenMessage(w.state, id)).toBe(true);
  });
});

describe('turn-complete', () => {
  it('is refused unless it comes from the current speaker', () => {
    const w = three();
    w.human();
    const out = w.complete('bob', 'I want to talk');
    expect(out.error?.code).toBe('NOT_CURRENT_SPEAKER');
    expect(w.speaker()).toBe('alice');
  });

  it('is refused while dormant and ignored where there is no rotation', () => {
    expect(three().complete('alice', 'x').error?.code).toBe('NOT_CURRENT_SPEAKER');
    const single = chatWorld([ALICE]);
    expect(single.complete('alice', 'x')).toMatchObject({ error: null, events: [] });
  });

  it('is de-duplicated by runId', () => {
    const w = three();
    w.human();
    expect(types(w.complete('alice', 'NO_REPLY', 'r-1').events)).toEqual([
      'TurnCompleted',
      'TurnGranted',
    ]);
    expect(w.complete('alice', 'NO_REPLY', 'r-1')).toMatchObject({ error: null, events: [] });
    expect(w.speaker()).toBe('bob');
  });

  it('an empty turn advances at once', () => {
    const w = three();
    w.human();
    const { events } = w.complete('alice', '  NO  ');
    expect(events[0]).toMatchObject({
      type: 'TurnCompleted',
      data: { agentId: 'alice', outcome: 'empty', tailFingerprint: null },
    });
    expect(events[1]).toMatchObject({
      type: 'TurnGranted',
      data: { agentId: 'bob', reason: 'advance', cycle: 1, position: 1 },
    });
  });

  it('a real turn waits for delivery, and the delivered reply advances', () => {
    const w = three();
    w.human();
    const done = w.complete('alice', 'Here is my considered answer.');
    expect(types(done.events)).toEqual(['TurnCompleted', 'DeliveryWaitStarted']);
    expect(done.events[1].data).toMatchObject({
      turnId: `${CHANNEL}:1`,
      discordUserId: ALICE.discordUserId,
      tailFingerprint: 'Here is my considered answer.',
      timeoutMs: 15000,
    });
    expect(w.speaker()).toBe('alice');
    expect(evaluateCheckTurn(w.state, 'alice')).toMatchObject({
      allowed: false,
      reason: 'awaiting-delivery',
    });
    expect(evaluateCheckTurn(w.state, 'bob').allowed).toBe(false);
    const delivered = w.post(ALICE, 'Here is my considered answer.');
    expect(types(delivered.events)).toEqual(['MessageSeen', 'DeliveryConfirmed', 'TurnGranted']);
    expect(w.speaker()).toBe('bob');
  });

  it('a split reply advances only on the fragment carrying the tail', () => {
    const w = chatWorld([ALICE, BOB, CAROL], {
      shuffle: false,
      config: { tailFingerprintLen: 10 },
    });
    w.human();
    const reply = 'part one of a long answer ... and the final words';
    w.complete('alice', reply);
    expect(types(w.post(ALICE, 'part one of a long answer').events)).toEqual(['MessageSeen']);
    expect(w.speaker()).toBe('alice');
    expect(types(w.post(ALICE, '... and the final words').events)).toContain('DeliveryConfirmed');
    expect(w.speaker()).toBe('bob');
  });

  it('a delivery seen before turn-complete confirms at once', () => {
    const w = three();
    w.human();
    w.post(ALICE, 'Quick answer');
    const { events } = w.complete('alice', 'Quick answer');
    expect(types(events)).toEqual(['TurnCompleted', 'DeliveryConfirmed', 'TurnGranted']);
  });

  it('a message at or before the anchor does not confirm', () => {
    const w = three();
    w.human();
    w.post(ALICE, 'Same words');
    w.human('and another thing');
    w.ok({ type: 'CheckTurn', data: { agentId: 'alice' } });
    const { events } = w.complete('alice', 'Same words');
    expect(types(events)).toEqual(['TurnCompleted', 'DeliveryWaitStarted']);
  });

  it('a reply seen before its own check was decided (a check queued behind it) still confirms', () => {
    const w = three();
    w.human();
    const checkedAt = Date.parse('2026-11-23T12:00:00Z');
    const sentAfterCheck = ((BigInt(checkedAt + 5) - 1420070400000n) << 22n).toString();
    w.ok({
      type: 'ObserveMessage',
      data: {
        messageId: sentAfterCheck,
        authorId: ALICE.discordUserId,
        authorIsBot: true,
        content: 'Same words',
        isModerator: false,
        agentIdOfAuthor: 'alice',
      },
    });
    w.ok({ type: 'CheckTurn', data: { agentId: 'alice' }, at: checkedAt });
    expect(w.state.currentTurn?.anchorMessageId).not.toBe(sentAfterCheck);
    expect(types(w.complete('alice', 'Same words').events)).toContain('DeliveryConfirmed');
  });

  it('a reply that arrives after a newer message (out of order, or redelivered) still confirms', () => {
    // Running: the reply is seen after a newer message, then the completion.
    const a = three();
    a.human();
    const reply = a.message(ALICE.discordUserId, 'Late words', { bot: true, agentId: 'alice' });
    a.moderator();
    a.ok(reply);
    expect(types(a.complete('alice', 'Late words').events)).toContain('DeliveryConfirmed');
    expect(a.speaker()).toBe('bob');
    // Awaiting delivery: the completion first, then a newer message, then the reply.
    const b = three();
    b.human();
    const late = b.message(ALICE.discordUserId, 'Late words', { bot: true, agentId: 'alice' });
    expect(types(b.complete('alice', 'Late words').events)).toContain('DeliveryWaitStarted');
    b.moderator();
    expect(types(b.ok(late).events)).toEqual(['MessageSeen', 'DeliveryConfirmed', 'TurnGranted']);
    // Seen again (a redelivery), it is the old turn's and changes nothing.
    expect(b.ok(late).events).toEqual([]);
  });

  it('an older message of the speaker sent before its grant is still ignored', () => {
    const w = three();
    const before = w.message(ALICE.discordUserId, 'Old words', { bot: true, agentId: 'alice' });
    w.human();
    expect(w.ok(before).events).toEqual([]);
    expect(types(w.complete('alice', 'Old words').events)).toContain('DeliveryWaitStarted');
  });

  it("the moderator's messages during the wait change nothing", () => {
    const w = three();
    w.human();
    w.complete('alice', 'answer');
    expect(types(w.moderator('⤵️').events)).toEqual(['MessageSeen']);
    expect(w.state.currentTurn?.phase).toBe('awaiting-delivery');
  });

  it('a human message during the wait wakes the channel: the first speaker takes the floor', () => {
    // Given bob's reply awaits delivery in a three-agent channel (alice passed)
    const w = three();
    w.human();
    w.pass();
    w.complete('bob', 'answer from bob');
    // When a human writes before the reply shows up
    const { events } = w.ok(w.message(HUMAN, 'wait, one more thing'));
    // Then the wait is cancelled and, as a wake from dormant, alice (first) opens a new cycle
    expect(types(events)).toEqual(['MessageSeen', 'DeliveryWaitCancelled', 'Woke', 'TurnGranted']);
    expect(events[1].data).toMatchObject({ agentId: 'bob', authorKind: 'human' });
    expect(events[3].data).toMatchObject({
      agentId: 'alice',
      cycle: 2,
      position: 0,
      reason: 'wake',
    });
  });

  it('the waiting speaker itself gets the floor first when it leads the list', () => {
    // Given alice (first in the list) awaits delivery
    const w = three();
    w.human();
    w.complete('alice', 'answer from alice');
    // When a human interrupts
    const { events } = w.ok(w.message(HUMAN, 'hold on'));
    // Then the new cycle still starts at the list's first agent, not after the last speaker
    expect(types(events)).toEqual(['MessageSeen', 'DeliveryWaitCancelled', 'Woke', 'TurnGranted']);
    expect(events[3].data).toMatchObject({ agentId: 'alice', cycle: 2, position: 0 });
  });

  it('a human naming an agent during the wait gives that agent the floor', () => {
    // Given bob's reply awaits delivery
    const w = three();
    w.human();
    w.pass();
    w.complete('bob', 'answer from bob');
    // When a human interrupts naming carol
    const msg = w.message(HUMAN, 'carol, what do you think?');
    if (msg.type === 'ObserveMessage') msg.data.mentions = [CAROL.discordUserId];
    const { events } = w.ok(msg);
    // Then carol opens the new cycle and the rotation carries on from her
    expect(types(events)).toEqual([
      'MessageSeen',
      'DeliveryWaitCancelled',
      'Woke',
      'SpeakerListRebuilt',
      'TurnGranted',
    ]);
    expect(events[3].data).toMatchObject({ speakers: [CAROL, ALICE, BOB] });
    expect(events[4].data).toMatchObject({ agentId: 'carol', cycle: 2, position: 0 });
  });

  it('the delivery timeout advances anyway with a warning event', () => {
    const w = three();
    w.human();
    w.complete('alice', 'never delivered');
    const turnId = w.state.currentTurn?.turnId ?? '';
    const { events, effects } = w.ok({ type: 'DeliveryTimeout', data: { turnId } });
    expect(types(events)).toEqual(['DeliveryTimedOut', 'TurnGranted']);
    expect(events[0].data).toEqual({ turnId, agentId: 'alice', timeoutMs: 15000 });
    expect(effects).toContainEqual(expect.objectContaining({ kind: 'log', level: 'warn' }));
    expect(w.speaker()).toBe('bob');
  });

  it('a stale timeout (turn already advanced) is ignored', () => {
    const w = three();
    w.human();
    w.complete('alice', 'hello');
    const turnId = w.state.currentTurn?.turnId ?? '';
    w.post(ALICE, 'hello');
    expect(w.ok({ type: 'DeliveryTimeout', data: { turnId } }).events).toEqual([]);
    expect(w.speaker()).toBe('bob');
  });

  it('an explicit ConfirmDelivery for the waiting turn advances', () => {
    const w = three();
    w.human();
    w.complete('alice', 'hello');
    const turnId = w.state.currentTurn?.turnId ?? '';
    expect(
      w.ok({ type: 'ConfirmDelivery', data: { turnId: 'other', messageId: '1' } }).events,
    ).toEqual([]);
    const { events, effects } = w.ok({
      type: 'ConfirmDelivery',
      data: { turnId, messageId: '999999' },
    });
    expect(types(events)).toEqual(['DeliveryConfirmed', 'TurnGranted']);
    expect(effects).toContainEqual({ kind: 'cancel', key: deliveryTimerKey(turnId) });
  });

  it('a completion naming an older turn is ignored (a refused run finishing late)', () => {
    const w = three();
    w.human();
    w.pass();
    expect(w.speaker()).toBe('bob');
    const stale = w.run({
      type: 'CompleteTurn',
      data: { agentId: 'bob', runId: 'refused-run', text: 'NO_REPLY', turnId: `${CHANNEL}:1` },
    });
    expect(stale).toMatchObject({ error: null, events: [] });
    expect(w.speaker()).toBe('bob');
    const real = w.run({
      type: 'CompleteTurn',
      data: { agentId: 'bob', runId: 'real-run', text: 'NO_REPLY', turnId: `${CHANNEL}:2` },
    });
    expect(types(real.events)).toEqual(['TurnCompleted', 'TurnGranted']);
  });

  it('a second turn-complete from the speaker while delivering is ignored', () => {
    const w = three();
    w.human();
    w.complete('alice', 'hello');
    expect(w.complete('alice', 'again')).toMatchObject({ error: null, events: [] });
  });

  it('validates its input', () => {
    const w = three();
    expect(
      w.run({ type: 'CompleteTurn', data: { agentId: '', runId: 'r', text: '' } }).error?.code,
    ).toBe('BAD_REQUEST');
    expect(
      w.run({ type: 'CompleteTurn', data: { agentId: 'a', runId: ' ', text: '' } }).error?.code,
    ).toBe('BAD_REQUEST');
  });
});

describe('moderator detection', () => {
  it('uses the isModerator flag of the observed message', () => {
    const w = three();
    w.ok(w.message(MODERATOR, 'hi', { bot: true, moderator: true }));
    expect(w.state.dormant).toBe(true);
  });
});
