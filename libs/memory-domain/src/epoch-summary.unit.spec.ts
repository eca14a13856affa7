import { epochTopics, extractiveSummary, type SummaryMessage } from './epoch-summary';

const msg = (
  id: string,
  authorName: string,
  content: string,
  extra: Partial<SummaryMessage> = {},
) =>
  ({
    messageId: id,
    authorId: `u-${authorName}`,
    authorName,
    content,
    at: Number(id),
    ...extra,
  }) as SummaryMessage;

describe('extractive epoch summary', () => {
  const talk = [
    msg('1', 'Ann', 'morning'),
    msg('2', 'Ben', 'the release pipeline broke again on the arm runners'),
    msg('3', 'Ann', 'pipeline flakes on arm runners every friday', { reactionCount: 3 }),
    msg('4', 'Cat', 'ok'),
    msg('5', 'Ben', 'I will pin the runner image and rerun the pipeline'),
  ];

  it('given a conversation, then it names who talked and quotes its salient lines verbatim, in order', () => {
    const s = extractiveSummary(talk, 2);
    expect(s.summary).toBe(
      '5 messages from 3 people. Ben: "the release pipeline broke again on the arm runners" Ann: "pipeline flakes on arm runners every friday"',
    );
    expect(s.sourceIds).toEqual(['1', '2', '3', '4', '5']);
  });

  it('never quotes a line it was not given (a deleted message is simply absent)', () => {
    const without = extractiveSummary(talk.filter((m) => m.messageId !== '3'));
    expect(without.summary).not.toContain('friday');
    expect(without.summary.startsWith('4 messages from 3 people.')).toBe(true);
    expect(without.sourceIds).not.toContain('3');
  });

  it('topics are words recurring in at least two lines, as first written', () => {
    expect(epochTopics(talk)).toEqual(['pipeline', 'runners', 'arm']);
    expect(epochTopics([msg('1', 'Ann', 'hello there')])).toEqual([]);
  });
});
