import {
  classifyTurnText,
  computeTmState,
  matchesTail,
  rebuildSpeakers,
  tailFingerprint,
} from './rules';
import { seededShuffle } from '../shared/prng';
import { ALICE, BOB, CAROL, DAVE } from '../../testing/channel-world';

describe('computeTmState (mode → turn-manager table)', () => {
  it.each([
    ['none', 5, null, false, 'disabled'],
    ['work', 3, null, false, 'disabled'],
    ['report', 3, null, false, 'dead'],
    ['chat', 0, null, false, 'disabled'],
    ['chat', 1, null, false, 'disabled'],
    ['chat', 2, null, false, 'normal'],
    ['chat', 3, null, false, 'shuffle'],
    ['discussion', 1, null, false, 'disabled'],
    ['discussion', 2, null, false, 'normal'],
    ['discussion', 4, null, false, 'shuffle'],
    ['discussion', 4, null, true, 'archived'],
    ['chat', 2, true, false, 'shuffle'],
    ['chat', 3, false, false, 'normal'],
    ['chat', 1, true, false, 'disabled'],
    ['report', 3, true, false, 'dead'],
  ] as const)('%s with %d agents, override %s, archived %s → %s', (m, n, o, a, want) => {
    expect(computeTmState(m, n, o, a)).toBe(want);
  });
});

describe('classifyTurnText', () => {
  it.each(['NO_REPLY', 'NO', '', '   ', '\n\t NO_REPLY \n', ' NO '])('%j is empty', (t) => {
    expect(classifyTurnText(t)).toBe('empty');
  });
  it.each(['No.', 'no', 'NO_REPLY please', 'Hello', 'NOPE'])('%j is real', (t) => {
    expect(classifyTurnText(t)).toBe('real');
  });
});

describe('tail fingerprint', () => {
  it('takes the last N characters of the trimmed reply', () => {
    expect(tailFingerprint('  hello world  \n', 5)).toBe('world');
    expect(tailFingerprint('hi', 40)).toBe('hi');
  });
  it('matches a fragment that ends with it, ignoring trailing whitespace', () => {
    expect(matchesTail('...and the end of the reply\n', 'of the reply')).toBe(true);
    expect(matchesTail('first fragment', 'of the reply')).toBe(false);
    expect(matchesTail('anything', '')).toBe(false);
  });
  it('keeps a leading space of the fingerprint significant', () => {
    const fp = tailFingerprint('abc def', 4);
    expect(fp).toBe(' def');
    expect(matchesTail('xyz abc def', fp)).toBe(true);
    expect(matchesTail('xyzdef', fp)).toBe(false);
  });
});

describe('rebuildSpeakers', () => {
  it('normal: keeps order, removes departed, appends newcomers', () => {
    const r = rebuildSpeakers([CAROL, ALICE, BOB], [BOB, DAVE, CAROL], {
      shuffle: false,
      seed: 1,
      avoidFirst: null,
    });
    expect(r.speakers.map((s) => s.agentId)).toEqual(['carol', 'bob', 'dave']);
    expect(r.added).toEqual(['dave']);
    expect(r.removed).toEqual(['alice']);
  });
  it('shuffle: a permutation, never starting with the avoided agent', () => {
    for (let seed = 0; seed < 200; seed++) {
      const r = rebuildSpeakers([ALICE, BOB, CAROL], [ALICE, BOB, CAROL, DAVE], {
        shuffle: true,
        seed,
        avoidFirst: 'carol',
      });
      expect(r.speakers.map((s) => s.agentId).sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
      expect(r.speakers[0].agentId).not.toBe('carol');
    }
  });
  it('shuffle of two agents puts the other one first', () => {
    for (let seed = 0; seed < 20; seed++) {
      const r = rebuildSpeakers([ALICE, BOB], [ALICE, BOB], {
        shuffle: true,
        seed,
        avoidFirst: 'bob',
      });
      expect(r.speakers.map((s) => s.agentId)).toEqual(['alice', 'bob']);
    }
  });
  it('is deterministic per seed', () => {
    expect(seededShuffle([1, 2, 3, 4, 5, 6], 42)).toEqual(seededShuffle([1, 2, 3, 4, 5, 6], 42));
  });
});
