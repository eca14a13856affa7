import {
  DEFAULT_DECISION,
  DEFAULT_TOPIC_SPLIT,
  decisionReached,
  topicSplit,
  topicWords,
  type UpkeepMessage,
} from './steward-upkeep';

const now = 1_000_000_000;
let n = 0;
const msg = (content: string, extra: Partial<UpkeepMessage> = {}): UpkeepMessage => ({
  messageId: String(++n),
  authorId: String(100 + (n % 4)),
  authorIsBot: false,
  at: now - 60_000 + n,
  content,
  ...extra,
});

const raids = [
  'who is up for the raid tonight',
  'raid starts at nine, bring potions',
  'I can tank the raid boss',
  'healers needed for the raid',
  'potions are in the guild bank for the raid',
  'raid boss drops the sword',
];
const recipes = [
  'anyone tried that ramen recipe',
  'the ramen broth takes six hours',
  'add miso to the ramen broth',
  'ramen with soft eggs is the best',
  'my broth came out salty',
];

describe('topic split (steward upkeep)', () => {
  it('finds the side topic of a busy channel whose talk split in two', () => {
    const messages = [...raids.map((c) => msg(c)), ...recipes.map((c) => msg(c))];
    // interleaved, as a busy channel is
    messages.sort((a, b) => (Number(a.messageId) % 3) - (Number(b.messageId) % 3));
    const split = topicSplit(messages, now, { ...DEFAULT_TOPIC_SPLIT, minMessages: 10 });
    expect(split).toBeDefined();
    expect(split!.topic).toBe('ramen');
    expect(split!.topics).toEqual([6, 5]);
    expect(recipes).toContain(messages.find((m) => m.messageId === split!.messageId)!.content);
  });

  it('names the thread by the most shared word, of equals the one used first', () => {
    const s = { ...DEFAULT_TOPIC_SPLIT, minMessages: 10 };
    // "ramen" and "broth" in three messages each: the side topic began with "ramen".
    const side = [
      'anyone tried that ramen recipe',
      'ramen broth takes six hours',
      'miso in the broth',
      'ramen with a rich broth',
    ];
    const split = topicSplit(
      [...raids, ...side].map((c) => msg(c)),
      now,
      s,
    )!;
    expect(split.topics).toEqual([6, 4]);
    expect(split.topic).toBe('ramen');
  });

  it('does not split one conversation, a quiet channel, old talk or bots', () => {
    const s = { ...DEFAULT_TOPIC_SPLIT, minMessages: 10 };
    const one = [...raids, ...raids].map((c) => msg(c));
    expect(topicSplit(one, now, s)).toBeUndefined();
    const both = [...raids, ...recipes].map((c) => msg(c));
    expect(topicSplit(both.slice(0, 9), now, s)).toBeUndefined();
    expect(
      topicSplit(
        both.map((m) => ({ ...m, at: now - s.windowMs - 1 })),
        now,
        s,
      ),
    ).toBeUndefined();
    expect(
      topicSplit(
        both.map((m) => ({ ...m, authorIsBot: true })),
        now,
        s,
      ),
    ).toBeUndefined();
  });

  it('joins a reply to what it answers', () => {
    const s = { ...DEFAULT_TOPIC_SPLIT, minMessages: 10 };
    const base = [...raids, ...recipes].map((c) => msg(c));
    const reply = msg('absolutely', { replyToMessageId: base[0].messageId });
    const split = topicSplit([...base, reply], now, s)!;
    expect(split.topics).toEqual([7, 5]);
  });

  it('reads words, not mentions, links or filler', () => {
    expect([...topicWords('<@123> check https://x.io the RAMEN, really!')]).toEqual([
      'check',
      'ramen',
    ]);
  });
});

describe('decision reached (steward upkeep)', () => {
  const s = DEFAULT_DECISION;
  const by = (author: string, content: string, extra: Partial<UpkeepMessage> = {}) =>
    msg(content, { authorId: author, ...extra });

  it('is a stated decision that two other members agreed to', () => {
    const d = by('1', "ok we decided: let's go with Postgres");
    const talk = [by('2', 'which database?'), d, by('2', 'agreed'), by('3', '👍 works for me')];
    expect(decisionReached(talk, now, s)).toMatchObject({ messageId: d.messageId, agreed: 2 });
  });

  it('counts a reply as agreement, but not the author agreeing with themself', () => {
    const d = by('1', 'Decision: the meetup is on Friday');
    const talk = [d, by('1', 'yes'), by('2', 'works', { replyToMessageId: d.messageId })];
    expect(decisionReached(talk, now, s)).toBeUndefined();
    expect(decisionReached([...talk, by('3', '+1')], now, s)?.agreed).toBe(2);
  });

  it('is not a question, an old decision or talk without one', () => {
    const q = [by('1', 'should we go with Friday?'), by('2', 'yes'), by('3', 'yes')];
    expect(decisionReached(q, now, s)).toBeUndefined();
    const old = [by('1', "let's go with Friday"), by('2', 'yes'), by('3', 'yes')].map((m) => ({
      ...m,
      at: now - s.windowMs - 1,
    }));
    expect(decisionReached(old, now, s)).toBeUndefined();
  });
});
