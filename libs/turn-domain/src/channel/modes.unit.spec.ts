import { evaluateCheckTurn } from './queries';
import { initialChannelState } from './evolve';
import { decideChannel } from './decide';
import {
  ALICE,
  BOB,
  CAROL,
  ChannelWorld,
  chatWorld,
  DAVE,
  GUILD,
  given,
  types,
} from '../../testing/channel-world';

const setMode = (mode: string, agents = [ALICE, BOB, CAROL]) =>
  ({ type: 'SetMode', data: { guildId: GUILD, mode, agents } }) as const;

describe('channel modes', () => {
  it('an unknown channel is mode none, turn manager disabled, everyone allowed', () => {
    const state = initialChannelState('42');
    expect(state.mode).toBe('none');
    expect(state.tmState).toBe('disabled');
    expect(evaluateCheckTurn(state, 'anyone').allowed).toBe(true);
  });

  it('ignores messages and turn completions in a none channel', () => {
    const w = new ChannelWorld();
    expect(w.human('hi').events).toEqual([]);
    expect(w.complete('alice', 'hello').events).toEqual([]);
  });

  it('given none, when set to chat, then the speaker list is built and the channel rests', () => {
    const { events, state } = given().when(setMode('chat', [ALICE, BOB]));
    expect(types(events)).toEqual([
      'MembersRefreshed',
      'ModeSet',
      'SpeakerListRebuilt',
      'WentDormant',
    ]);
    expect(events[1]).toEqual({
      type: 'ModeSet',
      data: { guildId: GUILD, from: 'none', to: 'chat', tmState: 'normal' },
    });
    expect(events[3]).toMatchObject({ type: 'WentDormant', data: { reason: 'start' } });
    expect(state.speakers.map((s) => s.agentId)).toEqual(['alice', 'bob']);
    expect(state.dormant).toBe(true);
    expect(state.currentTurn).toBeNull();
  });

  it.each(['work', 'discussion'])('refuses set-mode to %s with MODE_LOCKED', (mode) => {
    const { error, events } = given().when(setMode(mode));
    expect(error?.code).toBe('MODE_LOCKED');
    expect(events).toEqual([]);
  });

  it.each(['party', '', 'CHAT'])('refuses an unknown mode %j with INVALID_MODE', (mode) => {
    expect(given().when(setMode(mode)).error?.code).toBe('INVALID_MODE');
  });

  it('refuses changing a work channel with MODE_LOCKED', () => {
    const { error } = given({
      type: 'CreateChannel',
      data: { guildId: GUILD, mode: 'work', agents: [ALICE] },
    }).when(setMode('chat'));
    expect(error?.code).toBe('MODE_LOCKED');
  });

  it('refuses changing a discussion channel with MODE_LOCKED', () => {
    const w = new ChannelWorld();
    w.ok({
      type: 'CreateDiscussion',
      data: {
        guildId: GUILD,
        agents: [ALICE, BOB],
        initiatorAgentId: 'alice',
        callbackGuildId: '1',
        callbackChannelId: '2',
        guide: 'g',
        participants: [],
      },
    });
    expect(w.run(setMode('none')).error?.code).toBe('MODE_LOCKED');
  });

  it('switches freely between none, chat and report', () => {
    const w = new ChannelWorld();
    w.ok(setMode('chat'));
    expect(w.ok(setMode('report')).state.tmState).toBe('dead');
    expect(w.ok(setMode('none')).state.tmState).toBe('disabled');
    expect(w.ok(setMode('chat')).state.tmState).toBe('shuffle');
  });

  it('setting the same mode again changes nothing', () => {
    expect(given(setMode('chat')).when(setMode('chat')).events).toEqual([]);
  });

  it('report channels are dead: nobody is allowed and messages wake nobody', () => {
    const w = new ChannelWorld();
    w.ok(setMode('report'));
    expect(evaluateCheckTurn(w.state, 'alice').allowed).toBe(false);
    expect(evaluateCheckTurn(w.state, 'alice').reason).toBe('channel-dead');
    expect(w.human('hi').events).toEqual([]);
  });

  it('leaving chat mid-turn cancels the open turn', () => {
    const w = chatWorld([ALICE, BOB], { shuffle: false });
    w.human('hi');
    const { events } = w.ok(setMode('none'));
    expect(types(events)).toEqual(['TurnCancelled', 'ModeSet']);
    expect(w.state.currentTurn).toBeNull();
    expect(w.state.speakers).toEqual([]);
  });

  it('creation tools: work is disabled, report is dead, chat starts dormant', () => {
    const create = (mode: 'work' | 'report' | 'chat' | 'none') =>
      decideChannel(
        { type: 'CreateChannel', data: { guildId: GUILD, mode, agents: [ALICE, BOB, CAROL] } },
        initialChannelState('7'),
      );
    const work = create('work');
    expect(work.ok && types(work.events)).toEqual(['ChannelCreated', 'MembersRefreshed']);
    const chat = create('chat');
    expect(chat.ok && types(chat.events)).toEqual([
      'ChannelCreated',
      'MembersRefreshed',
      'SpeakerListRebuilt',
      'WentDormant',
    ]);
  });

  it('CreateChannel cannot make a discussion and cannot reconfigure a known channel', () => {
    const bad = given().when({
      type: 'CreateChannel',
      data: { guildId: GUILD, mode: 'discussion' as 'chat', agents: [] },
    });
    expect(bad.error?.code).toBe('BAD_REQUEST');
    const first = {
      type: 'CreateChannel',
      data: { guildId: GUILD, mode: 'work', agents: [] },
    } as const;
    expect(given(first).when(first).events).toEqual([]);
    expect(
      given(first).when({
        type: 'CreateChannel',
        data: { guildId: GUILD, mode: 'chat', agents: [] },
      }).error?.code,
    ).toBe('ALREADY_EXISTS');
  });
});

describe('turn-manager state from agent count and shuffle override', () => {
  it('one agent: disabled, everyone allowed, no grants', () => {
    const w = chatWorld([ALICE]);
    expect(w.state.tmState).toBe('disabled');
    expect(w.state.dormant).toBe(false);
    expect(types(w.human('hi').events)).toEqual(['MessageSeen']);
    expect(evaluateCheckTurn(w.state, 'alice').allowed).toBe(true);
    expect(evaluateCheckTurn(w.state, 'stranger').allowed).toBe(true);
  });

  it('two agents: normal; three: shuffle', () => {
    expect(chatWorld([ALICE, BOB]).state.tmState).toBe('normal');
    expect(chatWorld([ALICE, BOB, CAROL]).state.tmState).toBe('shuffle');
  });

  it('override true shuffles two agents; false keeps three in order; null restores', () => {
    expect(chatWorld([ALICE, BOB], { shuffle: true }).state.tmState).toBe('shuffle');
    const w = chatWorld([ALICE, BOB, CAROL], { shuffle: false });
    expect(w.state.tmState).toBe('normal');
    expect(w.speakers()).toEqual(['alice', 'bob', 'carol']);
    const { events } = w.ok({ type: 'SetShuffle', data: { shuffle: null } });
    expect(types(events)).toEqual(['ShuffleOverrideSet', 'SpeakerListRebuilt']);
    expect(w.state.tmState).toBe('shuffle');
  });

  it('a shuffle override set mid-cycle applies at the next cycle boundary', () => {
    const w = chatWorld([ALICE, BOB, CAROL], { shuffle: false });
    w.human('hi');
    const { events } = w.ok({ type: 'SetShuffle', data: { shuffle: true } });
    expect(types(events)).toEqual(['ShuffleOverrideSet']);
    expect(w.state.tmState).toBe('normal');
    w.speak('a');
    w.speak('b');
    w.speak('c');
    expect(w.state.tmState).toBe('shuffle');
  });

  it('a dormant chat channel that drops to one agent is disabled, and rests again at two', () => {
    const w = chatWorld([ALICE, BOB]);
    w.ok({ type: 'RefreshMembers', data: { agents: [ALICE] } });
    expect(w.state.tmState).toBe('disabled');
    expect(w.state.dormant).toBe(false);
    const { events } = w.ok({ type: 'RefreshMembers', data: { agents: [ALICE, DAVE] } });
    expect(types(events)).toEqual(['MembersRefreshed', 'SpeakerListRebuilt', 'WentDormant']);
    expect(w.state.tmState).toBe('normal');
    expect(w.speakers()).toEqual(['alice', 'dave']);
  });

  it('wake mode is validated and stored', () => {
    const w = chatWorld([ALICE, BOB]);
    expect(w.run({ type: 'SetWakeMode', data: { wakeMode: 'loud' } }).error?.code).toBe(
      'BAD_REQUEST',
    );
    expect(types(w.ok({ type: 'SetWakeMode', data: { wakeMode: 'granted' } }).events)).toEqual([
      'WakeModeSet',
    ]);
    expect(w.state.wakeMode).toBe('granted');
  });
});
