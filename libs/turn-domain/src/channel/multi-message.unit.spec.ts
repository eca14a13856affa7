import { evaluateCheckTurn } from './queries';
import {
  ALICE,
  BOB,
  CAROL,
  chatWorld,
  GUILD,
  CHANNEL,
  HUMAN,
  OTHER_BOT,
  types,
} from '../../testing/channel-world';

const three = () => chatWorld([ALICE, BOB, CAROL], { shuffle: false });

describe('multi-message mode', () => {
  it('a human start marker turns it on and refuses every agent', () => {
    const w = three();
    const { events } = w.human('↗️ long story coming');
    expect(types(events)).toEqual(['MessageSeen', 'MultiMessageStarted']);
    expect(w.state.multiMessage).toBe(true);
    for (const a of ['alice', 'bob', 'carol']) {
      expect(evaluateCheckTurn(w.state, a)).toMatchObject({
        allowed: false,
        multiMessage: true,
        reason: 'multi-message',
      });
    }
  });

  it('starting it mid-turn cancels the open turn', () => {
    const w = three();
    w.human();
    const { events } = w.human('↗️');
    expect(types(events)).toEqual(['MessageSeen', 'TurnCancelled', 'MultiMessageStarted']);
    expect(events[1].data).toMatchObject({ agentId: 'alice', reason: 'multi-message' });
    expect(w.complete('alice', 'late reply').error?.code).toBe('NOT_CURRENT_SPEAKER');
  });

  it('starting it while a reply is delivering cancels the wait and its timer', () => {
    const w = three();
    w.human();
    w.complete('alice', 'reply');
    const { effects } = w.human('↗️');
    expect(effects).toContainEqual({ kind: 'cancel', key: `delivery-timeout:${CHANNEL}:1` });
  });

  it('each further human message gets the prompt marker; agents and bots do not', () => {
    const w = three();
    w.human('↗️');
    const more = w.human('part two');
    expect(more.events[0].data).toMatchObject({ reaction: 'prompt-marker' });
    expect(more.effects).toEqual([
      {
        kind: 'send-message',
        purpose: 'prompt-marker',
        guildId: GUILD,
        channelId: CHANNEL,
        content: '⤵️',
        deleteAfterSend: false,
      },
    ]);
    expect(w.post(ALICE, 'can I?').effects).toEqual([]);
    expect(w.ok(w.message(OTHER_BOT, 'beep', { bot: true })).effects).toEqual([]);
    expect(w.moderator('⤵️').effects).toEqual([]);
    expect(w.state.multiMessage).toBe(true);
  });

  it('the end marker turns it off and wakes the next speaker', () => {
    const w = three();
    w.human('↗️');
    w.human('more');
    const { events, effects } = w.human('done ↙️');
    expect(types(events)).toEqual([
      'MessageSeen',
      'MultiMessageEnded',
      'SpeakerListRebuilt',
      'TurnGranted',
    ]);
    expect(events[3].data).toMatchObject({ agentId: 'alice', reason: 'multi-message-end' });
    expect(effects.map((e) => e.kind)).toEqual(['publish-granted', 'send-message']);
    expect(w.state.multiMessage).toBe(false);
    expect(evaluateCheckTurn(w.state, 'alice').allowed).toBe(true);
  });

  it('markers from bots or agents do nothing', () => {
    const w = three();
    w.ok(w.message(OTHER_BOT, '↗️', { bot: true }));
    expect(w.state.multiMessage).toBe(false);
    w.human('↗️');
    w.post(ALICE, '↙️');
    expect(w.state.multiMessage).toBe(true);
  });

  it('turn-complete during multi-message is refused (nobody holds the turn)', () => {
    const w = three();
    w.human('↗️');
    expect(w.complete('alice', 'NO_REPLY').error?.code).toBe('NOT_CURRENT_SPEAKER');
  });

  it('markers are configurable', () => {
    const w = chatWorld([ALICE, BOB], {
      config: { multiMessageStartMarker: '[[', multiMessageEndMarker: ']]' },
    });
    w.human('[[');
    expect(w.state.multiMessage).toBe(true);
    w.human(']]');
    expect(w.state.multiMessage).toBe(false);
    expect(w.ok(w.message(HUMAN, '↗️')).state.multiMessage).toBe(false);
  });
});
