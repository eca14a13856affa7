import fc from 'fast-check';
import { DISCORD_MESSAGE_LIMIT } from '@dirigent/contracts';
import {
  CANONICAL_DISPOSITIONS,
  enforceBannedPhrases,
  personasFor,
  shapeBeats,
  splitBeats,
  synthPurpose,
} from './index';

const byId = (id: string) => CANONICAL_DISPOSITIONS.find((d) => d.id === id)!;

describe('output shaping', () => {
  it('splits a burst at blank lines into at most six beats', () => {
    expect(splitBeats('hmm\n\nok so the thing is\n  \nwait, actually no')).toEqual([
      { text: 'hmm' },
      { text: 'ok so the thing is' },
      { text: 'wait, actually no', isCorrection: true },
    ]);
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z ]{1,10}[a-z]$/), { maxLength: 20 }), (ps) => {
        const beats = splitBeats(ps.join('\n\n'));
        expect(beats.length).toBeLessThanOrEqual(6);
        expect(beats.length).toBe(Math.min(ps.filter((p) => p.trim()).length, 6));
      }),
    );
  });

  it('single-line joins lines; silent and react-only plan no beats', () => {
    expect(shapeBeats('single-line', 'a\nb')).toEqual([{ text: 'a b' }]);
    expect(shapeBeats('multi-line', 'a\n\nb')).toEqual([{ text: 'a\n\nb' }]);
    expect(shapeBeats('silent', 'a')).toEqual([]);
    expect(shapeBeats('react-only', 'a')).toEqual([]);
  });

  it('cuts a beat longer than a Discord message into beats of one message each', () => {
    const long = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' '); // 3,889 characters
    for (const shape of ['single-line', 'multi-line', 'burst'] as const) {
      const beats = shapeBeats(shape, long);
      expect(beats.length).toBe(2);
      for (const b of beats) expect(b.text.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      expect(beats.map((b) => b.text).join(' ')).toBe(long);
    }
    fc.assert(
      fc.property(fc.string({ maxLength: 9000 }), (text) => {
        for (const b of shapeBeats('burst', text)) {
          expect(b.text.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
          expect(b.text.trim()).not.toBe('');
        }
      }),
    );
  });

  it('removes banned phrases whatever their case', () => {
    expect(
      enforceBannedPhrases('As an AI, I think so. great question!', ['as an ai', 'Great question']),
    ).toEqual({
      text: ', I think so.!',
      removed: ['as an ai', 'Great question'],
    });
    fc.assert(
      fc.property(fc.string(), fc.stringMatching(/^[a-z]{3,8}$/), (text, phrase) => {
        const out = enforceBannedPhrases(`${text} ${phrase.toUpperCase()} ${text}`, [phrase]);
        expect(out.text.toLowerCase()).not.toContain(phrase);
      }),
    );
  });

  it('fires research personas by voice and search posture', () => {
    expect(personasFor(byId('vibing'))).toEqual([]);
    expect(personasFor(byId('quick-react'))).toEqual([]);
    expect(personasFor(byId('roast-back')).sort()).toEqual(['comedian', 'participant-profiler']);
    expect(personasFor(byId('callback-from-memory')).sort()).toEqual([
      'memory-archeologist',
      'participant-profiler',
    ]);
    expect(personasFor(byId('contrarian-take'))).toContain('contrarian');
    expect(synthPurpose('medium')).toBe('synth-mid');
  });
});
