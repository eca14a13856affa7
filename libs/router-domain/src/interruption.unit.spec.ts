import { classifyInterruption } from './index';

const topicText = 'pineapple on pizza: yes or no? debate\n\nhmm\n\nok so the thing is pineapple';

describe('classifyInterruption (from the new message)', () => {
  it('folds a question to the bot', () => {
    expect(classifyInterruption({ content: 'wait dit, why though?', toBot: true, topicText })).toBe(
      'fold',
    );
    expect(
      classifyInterruption({ content: 'what about the weather tomorrow?', toBot: true, topicText }),
    ).toBe('fold');
  });

  it('aborts on a change of topic', () => {
    expect(
      classifyInterruption({
        content: 'anyway, who is up for games tonight',
        toBot: false,
        topicText,
      }),
    ).toBe('abort');
    expect(
      classifyInterruption({
        content: 'the deployment pipeline broke again after the merge',
        toBot: false,
        topicText,
      }),
    ).toBe('abort');
    expect(
      classifyInterruption({ content: 'did anyone see the match?', toBot: false, topicText }),
    ).toBe('abort');
  });

  it('continues after agreement or a short aside', () => {
    for (const content of ['exactly', 'yeah true lol', '😂', 'hold on, I have a point', '+1']) {
      expect(classifyInterruption({ content, toBot: false, topicText })).toBe('continue');
    }
  });

  it('folds a message to the bot and a question on the topic', () => {
    expect(classifyInterruption({ content: 'dit you are so wrong', toBot: true, topicText })).toBe(
      'fold',
    );
    expect(
      classifyInterruption({ content: 'is pineapple even a fruit?', toBot: false, topicText }),
    ).toBe('fold');
  });
});
