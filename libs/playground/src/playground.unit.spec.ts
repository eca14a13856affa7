import { demoAgentDecision } from './demo-agent';

const msg = (id: string, authorId: string, authorIsBot: boolean, content = 'x') => ({
  id,
  authorId,
  authorIsBot,
  content,
});

describe('demo agent decision', () => {
  it('answers the latest human message once, then passes', () => {
    const human = msg('100', '1', false, 'hi all');
    expect(demoAgentDecision('7', [human])).toEqual({ reply: true, prompt: 'hi all' });
    expect(demoAgentDecision('7', [human, msg('101', '8', true)])).toEqual({
      reply: true,
      prompt: 'hi all',
    });
    expect(demoAgentDecision('7', [human, msg('102', '7', true)])).toEqual({ reply: false });
    expect(
      demoAgentDecision('7', [human, msg('102', '7', true), msg('103', '1', false, 'again')]),
    ).toEqual({
      reply: true,
      prompt: 'again',
    });
  });

  it('passes when no human spoke', () => {
    expect(demoAgentDecision('7', [msg('5', '8', true)])).toEqual({ reply: false });
    expect(demoAgentDecision('7', [])).toEqual({ reply: false });
  });
});
