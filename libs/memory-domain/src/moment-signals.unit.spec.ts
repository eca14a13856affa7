import {
  judgeMoment,
  momentSignals,
  quoteSignal,
  reactionSignal,
  replyGraphSignal,
  sampledForScoring,
  selfDisclosureSignal,
  silenceSignal,
  type RoomMessage,
} from './moment-signals';

const at0 = 1_800_000_000_000;
const m = (id: string, authorId: string, content: string, extra: Partial<RoomMessage> = {}) =>
  ({
    messageId: id,
    authorId,
    authorIsBot: false,
    content,
    at: at0 + Number(id) * 1000,
    reactionCount: 0,
    replyCount: 0,
    quoteCount: 0,
    ...extra,
  }) as RoomMessage;

describe('moment signals, cheapest first', () => {
  it('reactions: distinct people who reacted against the threshold', () => {
    expect(reactionSignal(m('1', 'a', 'x', { reactionCount: 3 }))).toEqual({
      kind: 'reaction',
      score: 1,
    });
    expect(reactionSignal(m('1', 'a', 'x'))).toBeNull();
  });

  it('reply graph: distinct people replying, half for replies to the replies, not the author', () => {
    const take = m('1', 'ann', 'tabs are better');
    const window = [
      take,
      m('2', 'ben', 'no', { replyToMessageId: '1' }),
      m('3', 'ann', 'yes', { replyToMessageId: '1' }),
      m('4', 'cat', 'ben is right', { replyToMessageId: '2' }),
      m('5', 'ben', 'again', { replyToMessageId: '1' }),
    ];
    expect(replyGraphSignal(take, window)).toEqual({ kind: 'replied', score: 0.75 });
    expect(replyGraphSignal(m('9', 'dan', 'alone'), window)).toBeNull();
  });

  it('quotes: a quoted line is a quote; the bot’s reply quoted by a person is a callback', () => {
    const bot = m('1', 'bot', 'have you tried turning it off and on again', { authorIsBot: true });
    const quoting = m('2', 'ann', '> turning it off and on again\nclassic');
    expect(quoteSignal(bot, [bot, quoting])).toEqual({ kind: 'callback', score: 1 });
    const human = m('1', 'ben', 'have you tried turning it off and on again');
    expect(quoteSignal(human, [human, quoting])).toEqual({ kind: 'quote', score: 1 });
    expect(quoteSignal(human, [human])).toBeNull();
  });

  it('self-disclosure: the fact patterns and the broader ones, to be verified; never the bot', () => {
    expect(selfDisclosureSignal(m('1', 'a', 'I just moved to Lisbon'))).toMatchObject({
      kind: 'self-disclosure',
      verify: true,
    });
    expect(selfDisclosureSignal(m('1', 'a', 'my daughter starts school tomorrow'))).not.toBeNull();
    expect(selfDisclosureSignal(m('1', 'a', 'the build is red'))).toBeNull();
    expect(
      selfDisclosureSignal(m('1', 'a', 'I just moved to Lisbon', { authorIsBot: true })),
    ).toBeNull();
  });

  it('the silence after a substantive message makes it the last word; a short one or a quick answer does not', () => {
    const long = m(
      '1',
      'a',
      'after twenty years of writing software I learned that formatting debates never end and nobody changes their mind',
    );
    const policy = { reactions: 3, replies: 2, quotes: 1, silenceMs: 60_000, lastWordWords: 4 };
    expect(silenceSignal(long, long.at + 120_000, policy)).toEqual({
      kind: 'last-word',
      score: 1,
    });
    expect(silenceSignal(long, long.at + 5_000, policy)).toBeNull();
    expect(silenceSignal(m('1', 'a', 'ok bye'), at0 + 1000 + 120_000, policy)).toBeNull();
    const medium = m('1', 'a', 'well that settles the tabs question then', { reactionCount: 2 });
    expect(silenceSignal(medium, medium.at + 120_000, policy)?.score).toBe(1);
  });

  it('sampling for model scoring is deterministic by message id and follows the rate', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `${1000 + i}`);
    const picked = ids.filter((id) => sampledForScoring(id, 0.25)).length;
    expect(picked).toBeGreaterThan(400);
    expect(picked).toBeLessThan(600);
    expect(ids.filter((id) => sampledForScoring(id, 0)).length).toBe(0);
    expect(sampledForScoring('42', 0.5)).toBe(sampledForScoring('42', 0.5));
  });
});

describe('judging a moment', () => {
  it('the strongest signal names it; weaker ones add half; below 1 nothing', () => {
    expect(judgeMoment([{ kind: 'reaction', score: 2 / 3 }])).toBeNull();
    expect(
      judgeMoment([
        { kind: 'reaction', score: 2 / 3 },
        { kind: 'replied', score: 0.75 },
      ]),
    ).toEqual({ kind: 'replied', score: 0.75 + 1 / 3 });
  });

  it('asks for a model check only when the moment stands on an unverified pattern', () => {
    const disclosure = { kind: 'self-disclosure' as const, score: 1, verify: true };
    expect(judgeMoment([disclosure])).toMatchObject({ kind: 'self-disclosure', verify: true });
    expect(judgeMoment([disclosure, { kind: 'reaction', score: 1 }])?.verify).toBeUndefined();
  });

  it('reads every signal of a message in its window', () => {
    const take = m('1', 'ann', 'I just moved to Lisbon', { reactionCount: 1 });
    const kinds = momentSignals(take, [take], take.at + 10).map((s) => s.kind);
    expect(kinds).toEqual(['reaction', 'self-disclosure']);
  });
});
