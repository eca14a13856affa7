import { demoAgentDecision, memoryRecall, wholeSentences } from './demo-agent';

const msg = (id: string, authorId: string, authorIsBot: boolean, content = 'x') => ({
  id,
  authorId,
  authorIsBot,
  content,
});

describe('demo agent decision', () => {
  it('answers the latest human message once, then passes', () => {
    const human = msg('100', '1', false, 'hi all');
    expect(demoAgentDecision('7', [human])).toEqual({
      reply: true,
      prompt: 'hi all',
      messageId: '100',
    });
    expect(demoAgentDecision('7', [human, msg('101', '8', true)])).toEqual({
      reply: true,
      prompt: 'hi all',
      messageId: '100',
    });
    expect(demoAgentDecision('7', [human, msg('102', '7', true)])).toEqual({ reply: false });
    expect(
      demoAgentDecision('7', [human, msg('102', '7', true), msg('103', '1', false, 'again')]),
    ).toEqual({
      reply: true,
      prompt: 'again',
      messageId: '103',
    });
  });

  it('leaves a message naming another agent to it, and answers one naming itself', () => {
    const ada = { name: 'Ada', userId: '7' };
    const others = [ada, { name: 'Dit', userId: '9' }, { name: 'Molt', userId: '10' }];
    for (const content of ['@Dit do you remember the venue?', 'Dit, roll a d20', '<@10> hi']) {
      expect(demoAgentDecision('7', [msg('100', '1', false, content)], ada, others)).toEqual({
        reply: false,
      });
    }
    for (const content of ['hey everyone', '@Ada and @Dit, thoughts?', 'Editing is fun']) {
      expect(demoAgentDecision('7', [msg('100', '1', false, content)], ada, others)).toEqual({
        reply: true,
        prompt: content,
        messageId: '100',
      });
    }
  });

  it('passes when no human spoke', () => {
    expect(demoAgentDecision('7', [msg('5', '8', true)])).toEqual({ reply: false });
    expect(demoAgentDecision('7', [])).toEqual({ reply: false });
  });

  it("recalls the best memory hit that is neither the message answered nor a bot's", () => {
    const hit = (messageId: string, text: string) => ({
      layer: 'archive' as const,
      id: messageId,
      messageId,
      text,
      at: '2026-01-01T00:00:00.000Z',
      score: 1,
    });
    const people: Record<string, { name: string; bot: boolean }> = {
      '1': { name: 'Sam', bot: false },
      '2': { name: 'Ada', bot: true },
    };
    const author = (id: string | undefined) => (id ? people[id] : undefined);
    const by = (authorId: string, messageId: string, text: string) => ({
      ...hit(messageId, text),
      authorId,
    });
    expect(
      memoryRecall(
        [hit('9', 'the question'), by('2', '5', 'a bot said this'), by('1', '4', 'tea at five')],
        '9',
        author,
      ),
    ).toBe('Sam: tea at five');
    expect(memoryRecall([hit('9', 'the question')], '9', author)).toBeNull();
    // A question someone asked is no answer: the statement behind it is recalled.
    expect(
      memoryRecall(
        [by('1', '3', 'Where is the picnic again?'), by('1', '4', 'The picnic is at noon.')],
        '9',
        author,
      ),
    ).toBe('Sam: The picnic is at noon.');
    // The line that shares the question's words, though memory ranked another first.
    expect(
      memoryRecall(
        [by('1', '3', 'The picnic is at the park.'), by('1', '4', 'I am bringing lemonade.')],
        '9',
        author,
        'what did I say I would bring?',
      ),
    ).toBe('Sam: I am bringing lemonade.');
    // A long line is recalled by its first whole sentences, never cut inside one.
    const long = `Tea at five. ${'We bring cake and scones and jam. '.repeat(12)}`;
    expect(memoryRecall([by('1', '4', long)], '9', author)).toMatch(
      /^Sam: Tea at five\.( We bring cake and scones and jam\.)+$/,
    );
  });

  it('keeps whole sentences within the limit, or nothing', () => {
    expect(wholeSentences('One. Two two. Three three three.', 14)).toBe('One. Two two.');
    expect(wholeSentences('short', 14)).toBe('short');
    expect(wholeSentences('a first sentence far too long.', 5)).toBe('');
  });
});
