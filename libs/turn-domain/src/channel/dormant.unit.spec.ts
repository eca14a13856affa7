import { ALICE, BOB, CAROL, chatWorld, DAVE, ERIN, types } from '../../testing/channel-world';

const three = (config = {}) => chatWorld([ALICE, BOB, CAROL], { shuffle: false, config });

describe('dormant at a cycle boundary', () => {
  it('a unanimous empty cycle sends the channel dormant', () => {
    const w = three();
    w.human();
    w.pass();
    w.pass();
    const { events } = w.pass();
    expect(types(events)).toEqual([
      'TurnCompleted',
      'CycleCompleted',
      'SpeakerListRebuilt',
      'WentDormant',
    ]);
    expect(events[1].data).toMatchObject({
      cycle: 1,
      lastSpeakerAgentId: 'carol',
      unanimousEmpty: true,
      newAgents: [],
      // the waking message came before the cycle began
      humanSeen: false,
    });
    expect(events[3].data).toMatchObject({ reason: 'unanimous-empty', cycle: 1 });
    expect(w.state).toMatchObject({ dormant: true, currentTurn: null, cycleOutcomes: [] });
  });

  it('a single real turn vetoes dormancy: a new cycle starts', () => {
    const w = three();
    w.human();
    w.pass();
    w.speak('I have something');
    const { events } = w.pass();
    expect(types(events)).toEqual([
      'TurnCompleted',
      'CycleCompleted',
      'SpeakerListRebuilt',
      'TurnGranted',
    ]);
    expect(events[3].data).toMatchObject({
      agentId: 'alice',
      cycle: 2,
      position: 0,
      reason: 'new-cycle',
    });
  });

  it('a person speaking during an all-empty cycle gives the speakers who passed another round', () => {
    const w = three();
    w.human();
    w.pass();
    // Alice passed on the waking message; this one comes while Bob holds the floor.
    expect(types(w.human('alice, pin that').events)).toEqual(['MessageSeen']);
    w.pass();
    const { events } = w.pass();
    expect(types(events)).toEqual([
      'TurnCompleted',
      'CycleCompleted',
      'SpeakerListRebuilt',
      'TurnGranted',
    ]);
    expect(events[1].data).toMatchObject({ unanimousEmpty: true, humanSeen: true });
    expect(events[3].data).toMatchObject({ agentId: 'alice', cycle: 2, reason: 'new-cycle' });
    // The round after it, with nobody speaking, ends dormant.
    w.pass();
    w.pass();
    expect(types(w.pass().events)).toContain('WentDormant');
    expect(w.state.dormant).toBe(true);
  });

  it('after dormancy the next message wakes the first speaker of the list', () => {
    const w = three();
    w.human();
    w.pass();
    w.pass();
    w.pass();
    const { events } = w.human('new topic');
    expect(types(events)).toEqual(['MessageSeen', 'Woke', 'TurnGranted']);
    expect(events[2].data).toMatchObject({ agentId: 'alice', cycle: 2, reason: 'wake' });
  });
});

describe('seed edge cases', () => {
  it('agent leaves mid-cycle: its turn is skipped; it is removed at the boundary', () => {
    const w = three();
    w.human();
    w.ok({ type: 'RefreshMembers', data: { agents: [ALICE, CAROL] } });
    expect(w.speakers()).toEqual(['alice', 'bob', 'carol']);
    const { events } = w.pass();
    expect(events[1]).toMatchObject({
      type: 'TurnGranted',
      data: { agentId: 'carol', position: 2 },
    });
    const boundary = w.speak('still here');
    const rebuilt = boundary.events.find((e) => e.type === 'SpeakerListRebuilt');
    expect(rebuilt?.data).toMatchObject({ removed: ['bob'], added: [] });
    expect(w.speakers()).toEqual(['alice', 'carol']);
  });

  it('dormant check counts only agents who completed a turn', () => {
    const w = three();
    w.human();
    w.pass();
    w.ok({ type: 'RefreshMembers', data: { agents: [ALICE, BOB] } });
    // carol left before her turn: bob's pass ends the cycle, which is unanimous.
    const { events } = w.pass();
    expect(events.find((e) => e.type === 'CycleCompleted')?.data).toMatchObject({
      outcomes: [
        { agentId: 'alice', outcome: 'empty' },
        { agentId: 'bob', outcome: 'empty' },
      ],
      unanimousEmpty: true,
    });
    expect(w.state.dormant).toBe(true);
  });

  it('the current speaker leaving is skipped at once and the turn advances', () => {
    const w = three();
    w.human();
    const { events } = w.ok({ type: 'RefreshMembers', data: { agents: [BOB, CAROL] } });
    expect(types(events)).toEqual(['MembersRefreshed', 'TurnSkipped', 'TurnGranted']);
    expect(events[1].data).toMatchObject({ agentId: 'alice', reason: 'left-channel' });
    expect(w.speaker()).toBe('bob');
  });

  it('the current speaker leaving while its reply is delivering cancels the timer', () => {
    const w = three();
    w.human();
    w.complete('alice', 'bye');
    const { effects } = w.ok({ type: 'RefreshMembers', data: { agents: [BOB, CAROL] } });
    expect(effects).toContainEqual({ kind: 'cancel', key: `delivery-timeout:${'600:1'}` });
    expect(w.speaker()).toBe('bob');
  });

  it('agent joins mid-cycle: not granted this cycle, appended at the boundary, no dormancy', () => {
    const w = three();
    w.human();
    w.ok({ type: 'RefreshMembers', data: { agents: [ALICE, BOB, CAROL, DAVE] } });
    expect(w.speakers()).toEqual(['alice', 'bob', 'carol']);
    w.pass();
    w.pass();
    const { events } = w.pass();
    expect(events.find((e) => e.type === 'CycleCompleted')?.data).toMatchObject({
      unanimousEmpty: true,
      newAgents: ['dave'],
    });
    expect(types(events)).not.toContain('WentDormant');
    expect(w.speakers()).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(w.speaker()).toBe('alice');
    expect(events[events.length - 1].data).toMatchObject({ cycle: 2, reason: 'new-cycle' });
  });

  it('shuffle + new agents: appended before reshuffling, dormancy suppressed', () => {
    const w = chatWorld([ALICE, BOB, CAROL], { seed: 7 });
    expect(w.state.tmState).toBe('shuffle');
    w.human();
    w.ok({ type: 'RefreshMembers', data: { agents: [ALICE, BOB, CAROL, DAVE, ERIN] } });
    w.pass();
    w.pass();
    const last = w.speaker();
    const { events } = w.ok({
      type: 'CompleteTurn',
      data: { agentId: last ?? '', runId: 'x', text: 'NO_REPLY' },
      seed: 12345,
    });
    const rebuilt = events.find((e) => e.type === 'SpeakerListRebuilt');
    expect(rebuilt?.data).toMatchObject({
      reason: 'cycle-boundary',
      shuffled: true,
      seed: 12345,
      avoidFirst: last,
      added: ['dave', 'erin'],
      tmState: 'shuffle',
    });
    expect([...w.speakers()].sort()).toEqual(['alice', 'bob', 'carol', 'dave', 'erin']);
    expect(types(events)).not.toContain('WentDormant');
    expect(w.speaker()).toBe(w.speakers()[0]);
    expect(w.speaker()).not.toBe(last);
  });

  it('shuffle: the previous cycle last speaker never opens the next cycle', () => {
    for (let seed = 0; seed < 40; seed++) {
      const w = chatWorld([ALICE, BOB, CAROL, DAVE], {
        seed,
        config: { maxCyclesWithoutHuman: 0 },
      });
      w.human();
      for (let cycle = 0; cycle < 5; cycle++) {
        w.speak('a');
        w.speak('b');
        w.speak('c');
        const last = w.speaker();
        w.ok({
          type: 'CompleteTurn',
          data: { agentId: last ?? '', runId: `r${seed}-${cycle}`, text: 'NO' },
          seed: seed * 31 + cycle,
        });
        expect(w.speaker()).not.toBe(last);
        expect([...w.speakers()].sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
      }
    }
  });

  // With two agents the rule "last never first" leaves exactly one order: the one who spoke
  // last goes second, so the pair keeps alternating A, B, A, B across the boundary.
  it('shuffle with two agents (override on): the last speaker always goes second', () => {
    const w = chatWorld([ALICE, BOB], { shuffle: true, config: { maxCyclesWithoutHuman: 0 } });
    w.human();
    const openers: string[] = [];
    for (let i = 0; i < 4; i++) {
      openers.push(w.speaker() ?? '');
      w.speak('one');
      w.speak('two');
    }
    expect(new Set(openers).size).toBe(1);
    expect(w.speakers()).toHaveLength(2);
  });

  it('the stored seed reproduces the shuffle on replay', () => {
    const w = chatWorld([ALICE, BOB, CAROL, DAVE]);
    const first = w.log.find((e) => e.type === 'SpeakerListRebuilt');
    const w2 = chatWorld([ALICE, BOB, CAROL, DAVE]);
    expect(w2.log.find((e) => e.type === 'SpeakerListRebuilt')).toEqual(first);
  });

  it('normal order keeps the relative order of remaining speakers across boundaries', () => {
    const w = chatWorld([ALICE, BOB, CAROL], { shuffle: false });
    w.human();
    w.ok({ type: 'RefreshMembers', data: { agents: [CAROL, DAVE, ALICE] } });
    w.speak('1');
    w.pass();
    w.pass();
    expect(w.speakers()).toEqual(['alice', 'carol', 'dave']);
  });

  it('members may change while dormant: the list is rebuilt at once', () => {
    const w = three();
    const { events } = w.ok({ type: 'RefreshMembers', data: { agents: [ALICE, CAROL, DAVE] } });
    expect(types(events)).toEqual(['MembersRefreshed', 'SpeakerListRebuilt']);
    expect(w.speakers()).toEqual(['alice', 'carol', 'dave']);
    expect(w.state.dormant).toBe(true);
    expect(w.ok({ type: 'RefreshMembers', data: { agents: [DAVE, CAROL, ALICE] } }).events).toEqual(
      [],
    );
  });
});

describe('loop breaker', () => {
  it('rests a chat channel after N full cycles without a human message', () => {
    const w = three();
    w.human();
    for (let i = 0; i < 2; i++) {
      w.speak('x');
      w.speak('y');
      w.speak('z');
    }
    w.speak('x');
    w.speak('y');
    const { events } = w.speak('z');
    expect(events.find((e) => e.type === 'CycleCompleted')?.data).toMatchObject({
      humanSeen: false,
      cyclesWithoutHuman: 3,
    });
    expect(events.find((e) => e.type === 'WentDormant')?.data).toEqual({
      reason: 'loop-breaker',
      cycle: 3,
      cyclesWithoutHuman: 3,
    });
    expect(w.state.dormantReason).toBe('loop-breaker');
  });

  it('a human message in a cycle resets the count', () => {
    const w = three();
    w.human();
    w.speak('x');
    w.speak('y');
    w.speak('z');
    w.speak('x');
    w.speak('y');
    w.speak('z');
    w.speak('x');
    w.human('still here'); // interrupts nothing: bob is thinking
    w.speak('y');
    w.speak('z');
    expect(w.state.dormant).toBe(false);
    expect(w.state.cyclesWithoutHuman).toBe(0);
  });

  it('after the loop breaker only a human message wakes the channel', () => {
    const w = three({ maxCyclesWithoutHuman: 1 });
    w.human();
    w.speak('x');
    w.speak('y');
    w.speak('z');
    expect(w.state.dormantReason).toBe('loop-breaker');
    expect(types(w.post(ALICE, 'psst').events)).toEqual(['MessageSeen']);
    expect(types(w.human('ok go on').events)).toEqual(['MessageSeen', 'Woke', 'TurnGranted']);
  });

  it('0 turns it off', () => {
    const w = three({ maxCyclesWithoutHuman: 0 });
    w.human();
    for (let i = 0; i < 10; i++) w.speak(`line ${i}`);
    expect(w.state.dormant).toBe(false);
    expect(w.state.cycle).toBe(4);
  });
});
