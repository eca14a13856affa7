import { reactToChannelEvent } from './react';
import { runChannelCommand } from './handle';
import type { ChannelEvent } from './events';
import { evolveChannel, initialChannelState } from './evolve';
import {
  ALICE,
  BOB,
  CHANNEL,
  chatWorld,
  discussionWorld,
  GUILD,
} from '../../testing/channel-world';
import type { WakeMode } from './types';

const wokenWith = (wakeMode: WakeMode) => {
  const w = chatWorld([ALICE, BOB]);
  if (wakeMode !== 'both') w.ok({ type: 'SetWakeMode', data: { wakeMode } });
  return w.human('hi').effects;
};

describe('reactor: waking the next speaker', () => {
  const granted = {
    kind: 'publish-granted',
    guildId: GUILD,
    channelId: CHANNEL,
    agentId: 'alice',
    turnId: `${CHANNEL}:1`,
    cycle: 1,
    reason: 'wake',
  };
  const ping = {
    kind: 'send-message',
    purpose: 'schedule-identifier',
    guildId: GUILD,
    channelId: CHANNEL,
    content: `<@${ALICE.discordUserId}> ➡️`,
    deleteAfterSend: true,
  };

  it('both (default): publishes turn.granted and pings on Discord', () => {
    expect(wokenWith('both')).toEqual([granted, ping]);
  });
  it('granted: only the NATS event', () => {
    expect(wokenWith('granted')).toEqual([granted]);
  });
  it('discord: only the self-deleting schedule identifier', () => {
    expect(wokenWith('discord')).toEqual([ping]);
  });
  it('the schedule identifier is configurable', () => {
    const w = chatWorld([ALICE, BOB], { config: { scheduleIdentifier: '>>' } });
    expect(w.human().effects[1]).toMatchObject({ content: `<@${ALICE.discordUserId}> >>` });
  });
});

describe('reactor: delivery timer', () => {
  it('a delivery wait schedules the timeout command, keyed by turn', () => {
    const w = chatWorld([ALICE, BOB], { config: { deliveryTimeoutMs: 5000 } });
    w.human();
    expect(w.complete('alice', 'hello').effects).toEqual([
      {
        kind: 'schedule',
        key: `delivery-timeout:${CHANNEL}:1`,
        afterMs: 5000,
        channelId: CHANNEL,
        command: { type: 'DeliveryTimeout', data: { turnId: `${CHANNEL}:1` } },
      },
    ]);
  });

  it('confirmation cancels it and wakes the next speaker', () => {
    const w = chatWorld([ALICE, BOB]);
    w.human();
    w.complete('alice', 'hello');
    expect(w.post(ALICE, 'hello').effects.map((e) => e.kind)).toEqual([
      'cancel',
      'publish-granted',
      'send-message',
    ]);
  });

  it('an interrupted wait cancels the timer', () => {
    const w = chatWorld([ALICE, BOB]);
    w.human();
    w.complete('alice', 'hello');
    expect(w.human('hey').effects[0]).toEqual({
      kind: 'cancel',
      key: `delivery-timeout:${CHANNEL}:1`,
    });
  });
});

describe('reactor: discussions and notices', () => {
  it('posts the guide before the first grant', () => {
    const w = discussionWorld([ALICE, BOB]);
    let state = initialChannelState(CHANNEL);
    const effects = w.log.flatMap((e) => {
      state = evolveChannel(state, e);
      return reactToChannelEvent(e, state, w.config);
    });
    expect(effects.map((e) => (e.kind === 'send-message' ? e.purpose : e.kind))).toEqual([
      'discussion-guide',
      'publish-granted',
      'schedule-identifier',
    ]);
    expect(effects[0]).toMatchObject({ content: expect.stringContaining('Topic: naming') });
  });

  it('the loop breaker posts a notice in a chat channel', () => {
    const w = chatWorld([ALICE, BOB], { config: { maxCyclesWithoutHuman: 1 } });
    w.human();
    w.speak('a');
    const { effects } = w.speak('b');
    expect(effects).toContainEqual(
      expect.objectContaining({ kind: 'send-message', purpose: 'notice' }),
    );
  });

  it('an archived non-discussion notice uses the generic text', () => {
    const state = { ...chatWorld([ALICE, BOB]).state, tmState: 'archived' as const };
    const seen: ChannelEvent = {
      type: 'MessageSeen',
      data: {
        messageId: '1',
        authorId: '2',
        authorKind: 'human',
        agentId: null,
        tail: null,
        reaction: 'archived-notice',
      },
    };
    expect(reactToChannelEvent(seen, state)).toEqual([
      expect.objectContaining({ content: 'This channel is archived and no longer active.' }),
    ]);
  });

  it('events that need no action produce no effects', () => {
    const w = chatWorld([ALICE, BOB]);
    expect(w.ok({ type: 'SetShuffle', data: { shuffle: true } }).effects).toEqual([]);
  });
});

describe('runChannelCommand', () => {
  it('returns events, the state after them and the effects in order', () => {
    const w = chatWorld([ALICE, BOB]);
    const out = runChannelCommand(w.message('2001', 'hi'), w.state, w.config);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.events.map((e) => e.type)).toEqual(['MessageSeen', 'Woke', 'TurnGranted']);
    expect(out.state.currentTurn?.agentId).toBe('alice');
    expect(out.effects.map((e) => e.kind)).toEqual(['publish-granted', 'send-message']);
  });

  it('passes domain errors through', () => {
    const w = chatWorld([ALICE, BOB]);
    const out = runChannelCommand(
      { type: 'SetMode', data: { guildId: GUILD, mode: 'work' } },
      w.state,
    );
    expect(out).toMatchObject({ ok: false, error: { code: 'MODE_LOCKED' } });
  });

  it('treats a registered member posting without agentIdOfAuthor as an agent', () => {
    const w = chatWorld([ALICE, BOB]);
    const out = w.ok(w.message(BOB.discordUserId, 'hi', { bot: true }));
    expect(out.events[0].data).toMatchObject({ authorKind: 'agent', agentId: 'bob' });
  });
});
