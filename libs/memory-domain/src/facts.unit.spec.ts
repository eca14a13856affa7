import { disclosures, isValidAt, learnFact, validityFactor, type TimedFact } from './facts';

const paris: TimedFact = { id: 'f1', key: 'lives-in', value: 'Paris', validFrom: 1000 };

describe('fact validity windows', () => {
  it('given no current fact, when one is learned, then it is added', () => {
    expect(learnFact(undefined, paris)).toEqual({ kind: 'added', added: paris });
  });

  it('given a current fact, when the same value is learned again, then nothing changes', () => {
    const again = { ...paris, id: 'f9', value: ' paris ', validFrom: 5000 };
    expect(learnFact(paris, again)).toEqual({ kind: 'unchanged', current: paris });
  });

  it('given a current fact, when a contradicting one is learned, then the old one is closed, never dropped', () => {
    const berlin = { id: 'f2', key: 'lives-in', value: 'Berlin', validFrom: 9000 };
    const change = learnFact(paris, berlin);
    expect(change).toEqual({
      kind: 'superseded',
      closed: { ...paris, validUntil: 9000, supersededBy: 'f2' },
      added: berlin,
    });
    if (change.kind !== 'superseded') throw new Error('unreachable');
    expect(isValidAt(change.closed, 8999)).toBe(true);
    expect(isValidAt(change.closed, 9000)).toBe(false);
    expect(isValidAt(change.added, 9000)).toBe(true);
  });

  it('given a current fact, when an older contradicting one arrives late, then it is added already closed', () => {
    const older = { id: 'f0', key: 'lives-in', value: 'Rome', validFrom: 500 };
    expect(learnFact(paris, older)).toEqual({
      kind: 'historical',
      added: { ...older, validUntil: 1000, supersededBy: 'f1' },
    });
  });

  it('ranks a fact that no longer holds below one that does, and leaves others alone', () => {
    expect(validityFactor({ validFrom: 0, validUntil: 10 }, 20)).toBeLessThan(1);
    expect(validityFactor({ validFrom: 0, validUntil: 10 }, 5)).toBe(1);
    expect(validityFactor({ validFrom: 0 }, 20)).toBe(1);
    expect(validityFactor({}, 20)).toBe(1);
  });
});

describe('self-disclosures', () => {
  it.each([
    ['I just moved to Berlin!', 'lives-in', 'Berlin', 'lives in Berlin'],
    ['i live in New York and love it', 'lives-in', 'New York', 'lives in New York'],
    ["I'm working at Acme Corp now", 'works-at', 'Acme Corp', 'works at Acme Corp'],
    ['my favourite band is Radiohead.', 'favorite-band', 'Radiohead', 'favorite band is Radiohead'],
    [
      'I am a certified lifeguard now!',
      'is-a:certified lifeguard',
      'certified lifeguard',
      'is a certified lifeguard',
    ],
  ])('%j → %s = %s', (text, key, value, statement) => {
    expect(disclosures(text)).toEqual([{ key, value, statement }]);
  });

  it('keeps what someone is beside what else they are, never superseding it', () => {
    const [lifeguard] = disclosures('I passed the exam. I am a certified lifeguard now!');
    const [tired] = disclosures("I'm a bit tired today, long week.");
    expect(tired.key).not.toBe(lifeguard.key);
    // A fact is superseded by one of the same key: where someone lives, not what they are.
    expect(disclosures('I moved to Lisbon.')[0].key).toBe(disclosures('I live in Porto')[0].key);
  });

  it('finds nothing in third-person talk', () => {
    expect(disclosures('she moved to Berlin')).toEqual([]);
    expect(disclosures('what is your favourite band?')).toEqual([]);
  });
});
