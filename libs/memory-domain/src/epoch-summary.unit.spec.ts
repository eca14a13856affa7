import fc from 'fast-check';
import { contentWords, stem } from './embedder';
import { epochTopics, extractiveSummary, lineSalience, type SummaryMessage } from './epoch-summary';
import { disclosures } from './facts';

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

describe('extractive epoch summary, each line split once', () => {
  // The summary as it was written before each line's words were split and stemmed once
  // (three times a line): the reference the single pass must equal.
  const stems = (m: SummaryMessage) => [...new Set(contentWords(m.content).map(stem))];
  const frequencies = (ms: readonly SummaryMessage[]) => {
    const df = new Map<string, number>();
    for (const m of ms) for (const w of stems(m)) df.set(w, (df.get(w) ?? 0) + 1);
    return df;
  };
  const salience = (m: SummaryMessage, df: Map<string, number>) => {
    const words = stems(m);
    if (!words.length) return 0;
    const shared = words.reduce((s, w) => s + Math.min((df.get(w) ?? 1) - 1, 3), 0);
    const room = 1.5 * (m.reactionCount ?? 0) + 1.2 * (m.replyCount ?? 0) + 2 * (m.quoteCount ?? 0);
    const substance = Math.min(words.length, 12) / 4;
    const disclosure = disclosures(m.content).length ? 1.5 : 0;
    return (
      room + shared / Math.sqrt(words.length) + substance + disclosure - (m.authorIsBot ? 1 : 0)
    );
  };
  const topicsOf = (ms: readonly SummaryMessage[]) => {
    const df = frequencies(ms);
    const spelled = new Map<string, string>();
    for (const m of ms) {
      for (const w of contentWords(m.content)) {
        if (w.length > 2 && !/^\d+$/.test(w) && !spelled.has(stem(w))) spelled.set(stem(w), w);
      }
    }
    return [...df]
      .filter(([s, n]) => n >= 2 && spelled.has(s))
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 3)
      .map(([s]) => spelled.get(s)!);
  };
  const words = [
    'pipeline',
    'pipelines',
    'running',
    'runner',
    'I',
    'live',
    'in',
    'Lyon',
    'the',
    'café',
    'cafe',
    '2024',
    'ok',
    'moved',
    'to',
    'friday',
    'Fridays',
    'arm',
    'my',
    'sister',
    'is',
    'a',
    'nurse',
    'work',
    'at',
    'Acme',
    '!',
    '?',
  ];
  const line = fc.array(fc.constantFrom(...words), { maxLength: 14 }).map((ws) => ws.join(' '));
  const message = fc.record({
    authorName: fc.constantFrom('Ann', 'Ben', 'Cat'),
    content: line,
    reactionCount: fc.nat(3),
    replyCount: fc.nat(2),
    authorIsBot: fc.boolean(),
  });

  it('scores, picks and names topics exactly as splitting each line three times did', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 40 }), (raw) => {
        const ms = raw.map((r, i) => msg(String(i + 1), r.authorName, r.content, r));
        const df = frequencies(ms);
        for (const m of ms) expect(lineSalience(m, df)).toBe(salience(m, df));
        expect(epochTopics(ms)).toEqual(topicsOf(ms));
        expect(extractiveSummary(ms).topics).toEqual(topicsOf(ms));
        const picked = ms
          .map((m, i) => ({ m, i, s: salience(m, df) }))
          .filter((x) => x.s > 0)
          .sort((a, b) => b.s - a.s || a.i - b.i)
          .slice(0, 3)
          .map((x) => x.m.content.replace(/\s+/g, ' ').trim());
        const summary = extractiveSummary(ms).summary;
        for (const p of picked) expect(summary).toContain(`"${p}"`);
      }),
      { numRuns: 300 },
    );
  });
});
