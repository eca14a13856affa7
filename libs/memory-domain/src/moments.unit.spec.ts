import { detectMoment, quotedPassages } from './moments';
import { shouldConsolidate } from './dossier';
import { epochCloseDue, epochId, epochTranscript, outlineEpoch } from './epochs';

const quiet = { authorIsBot: false, reactionCount: 0, replyCount: 0, quoteCount: 0 };

describe('moment extraction', () => {
  it('given a message with enough reactions, then it is a verbatim highlight candidate', () => {
    const content = '  rust is just C++ wearing a seatbelt  ';
    expect(detectMoment({ ...quiet, content, reactionCount: 3 })).toEqual({
      kind: 'reaction',
      rawText: content,
      score: 1,
    });
  });

  it('picks the strongest signal', () => {
    expect(detectMoment({ ...quiet, content: 'x', reactionCount: 3, replyCount: 4 })?.kind).toBe(
      'replied',
    );
    expect(detectMoment({ ...quiet, content: 'x', quoteCount: 2 })?.kind).toBe('quote');
  });

  it('given no signal, then nothing; a self-disclosure from a person is kept', () => {
    expect(detectMoment({ ...quiet, content: 'ok', reactionCount: 2, replyCount: 1 })).toBeNull();
    expect(detectMoment({ ...quiet, content: 'I just moved to Lisbon' })?.kind).toBe(
      'self-disclosure',
    );
    expect(
      detectMoment({ ...quiet, authorIsBot: true, content: 'I just moved to Lisbon' }),
    ).toBeNull();
  });

  it('finds quoted passages of Discord markdown', () => {
    expect(quotedPassages('> rust is just C++ wearing a seatbelt\nso true')).toEqual([
      'rust is just C++ wearing a seatbelt',
    ]);
    expect(quotedPassages('> hi\nno quote here')).toEqual([]);
  });
});

describe('dossier consolidation predicate', () => {
  const t = 1_000_000_000;
  it('given a new user, then the first dossier waits for a few messages', () => {
    expect(shouldConsolidate({ messagesSince: 4, charsSince: 5000, now: t })).toBe(false);
    expect(shouldConsolidate({ messagesSince: 5, charsSince: 10, now: t })).toBe(true);
  });
  it('given a recent consolidation, then never again within the interval', () => {
    expect(
      shouldConsolidate({
        messagesSince: 100,
        charsSince: 1e5,
        lastConsolidatedAt: t - 60_000,
        now: t,
      }),
    ).toBe(false);
  });
  it('given enough messages or characters since, then yes', () => {
    const last = t - 3_600_000;
    expect(
      shouldConsolidate({ messagesSince: 25, charsSince: 10, lastConsolidatedAt: last, now: t }),
    ).toBe(true);
    expect(
      shouldConsolidate({ messagesSince: 3, charsSince: 2000, lastConsolidatedAt: last, now: t }),
    ).toBe(true);
    expect(
      shouldConsolidate({ messagesSince: 3, charsSince: 100, lastConsolidatedAt: last, now: t }),
    ).toBe(false);
  });
});

describe('epochs', () => {
  const msgs = [
    { messageId: '11', authorId: '2', content: 'hi', at: 100 },
    { messageId: '12', authorId: '1', content: 'yo', at: 200, authorName: 'Ann' },
    { messageId: '13', authorId: '1', content: 'sup', at: 300, authorName: 'Ann' },
  ];
  it('outlines the window: bounds, count, participants most active first', () => {
    expect(outlineEpoch(msgs)).toEqual({
      startAt: 100,
      endAt: 300,
      messageCount: 3,
      participants: ['1', '2'],
    });
  });
  it('names an epoch by its channel and first message, deterministically', () => {
    expect(epochId('7', '11')).toBe(epochId('7', '11'));
    expect(epochId('7', '11')).not.toBe(epochId('8', '11'));
  });
  it('is due after the gap of silence', () => {
    expect(epochCloseDue(1000, 500, 1499)).toBe(false);
    expect(epochCloseDue(1000, 500, 1500)).toBe(true);
  });
  it('keeps the newest lines of the transcript within the budget', () => {
    expect(epochTranscript(msgs, 16)).toBe('Ann: yo\nAnn: sup');
  });
});
