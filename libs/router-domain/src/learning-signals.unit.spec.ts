import { judgeTurn, quotesLine, refersBack, type WindowMessage } from './learning-signals';
import { memberSignal } from './learning';

const agent = { id: 'dit', name: 'Dit' };
const line = { messageId: '900', text: 'the moon is a very large wheel of cheese, obviously' };
let n = 0;
const human = (content: string, extra: Partial<WindowMessage> = {}): WindowMessage => ({
  messageId: String(++n),
  authorId: '1',
  authorIsBot: false,
  content,
  ...extra,
});
const talk = [human('anyway, dinner?'), human('pizza again'), human('sure')];
const judge = (o: Partial<Parameters<typeof judgeTurn>[0]>) =>
  judgeTurn({ agent, sent: [line], messages: talk, reactedTo: new Set(), minMessages: 3, ...o });

describe('quotesLine / refersBack', () => {
  it('takes a run of five words of the line as a quote, case and punctuation aside', () => {
    expect(quotesLine(line.text, '> A very LARGE wheel of cheese!! lol')).toBe(true);
    expect(quotesLine(line.text, 'cheese is large, the moon is not')).toBe(false);
    // A short line is quoted only whole; under three words never.
    expect(quotesLine('tabs over spaces', 'ok fine, tabs over spaces')).toBe(true);
    expect(quotesLine('no', 'no')).toBe(false);
  });

  it('hears "like Dit said" and its kin, not a bare name', () => {
    expect(refersBack(['Dit'], 'honestly like dit said, just ship it')).toBe(true);
    expect(refersBack(['Dit'], 'Dit was right about the build')).toBe(true);
    expect(refersBack(['Dit'], "dit's point stands")).toBe(true);
    expect(refersBack(['Dit'], 'dit, what time is it')).toBe(false);
    expect(refersBack(['Dit'], 'like ditto said')).toBe(false);
  });
});

describe('judgeTurn', () => {
  it('calls a line ignored when humans kept talking and nobody engaged', () => {
    expect(judge({})).toEqual({ signal: 'ignored', polarity: 'negative' });
    // Too little talk says nothing; a bot's messages are not the room.
    expect(judge({ messages: talk.slice(0, 2) })).toBeNull();
    expect(judge({ messages: [...talk.slice(0, 2), human('beep', { authorIsBot: true })] })).toBe(
      null,
    );
  });

  it('is not ignored when someone replied, reacted, named the agent or quoted it', () => {
    expect(judge({ messages: [...talk, human('hm', { replyToMessageId: '900' })] })).toBeNull();
    expect(judge({ reactedTo: new Set(['900']) })).toBeNull();
    expect(judge({ messages: [...talk, human('dit you are weird')] })).toBeNull();
    expect(judge({ messages: [...talk, human('"large wheel of cheese, obviously"')] })).toBeNull();
  });

  it('judges a silent turn: ok when the room went on, missed when someone asked for the agent', () => {
    expect(judge({ sent: [] })).toEqual({ signal: 'silent-ok', polarity: 'positive' });
    expect(judge({ sent: [], messages: [human('where is dit when you need it')] })).toEqual({
      signal: 'silent-missed',
      polarity: 'negative',
    });
    expect(judge({ sent: [], messages: [human('<@42> ?', { mentions: ['42'] })] })).toBeNull();
    expect(
      judgeTurn({
        agent: { ...agent, discordUserId: '42' },
        sent: [],
        messages: [human('<@42> ?', { mentions: ['42'] })],
        reactedTo: new Set(),
        minMessages: 3,
      }),
    ).toEqual({ signal: 'silent-missed', polarity: 'negative' });
    expect(judge({ sent: [], messages: [] })).toBeNull();
  });

  it('steps every judgement by the rate', () => {
    const learning = { enabled: true, rate: 0.1, bounds: [0.5, 2] as [number, number] };
    const step = (kind: 'silent-ok' | 'silent-missed' | 'ignored', positive: boolean) =>
      memberSignal({
        current: null,
        input: { type: 'add', kind, polarity: positive ? 'positive' : 'negative' },
        today: 0,
        dailyCap: Infinity,
        baseline: 1,
        adjustment: 0,
        learning,
      })!.delta;
    expect([step('silent-ok', true), step('silent-missed', false), step('ignored', false)]).toEqual(
      [0.1, -0.1, -0.1],
    );
  });
});
