import { builtSubjects, wireNames } from './contract-names';
import { codeSpans, normaliseSubject, readDoc } from './markdown';

/**
 * docs/architecture.md is the project's copy of the public contract. This test keeps it true:
 * every wire name of libs/contracts — each value of `Subjects` (walked recursively), each
 * subject a `subject.*` builder makes (called with placeholders, and with every value of a
 * literal-typed parameter), each stream, durable, bucket and envelope type — must appear in
 * the doc as a code span. Placeholders compare alike (`<guildId>` = `<g>`).
 */

const DOC = 'docs/architecture.md';

export function undocumented(doc: string): string[] {
  const spans = codeSpans(doc).map(normaliseSubject);
  const exact = new Set(spans);
  return wireNames()
    .filter(({ value, prefix }) => {
      const v = normaliseSubject(value);
      return prefix ? !spans.some((s) => s === v || s.startsWith(`${v}.`)) : !exact.has(v);
    })
    .map(({ source, value }) => `${value} (${source})`);
}

describe('docs/architecture.md: the contract in the repository', () => {
  const doc = readDoc(DOC);

  it('names every subject, stream, durable, bucket and envelope type of libs/contracts', () => {
    // A name listed here is missing from docs/architecture.md: add it (with its kind and
    // payload) to the table of its service.
    expect(undocumented(doc)).toEqual([]);
  });

  it('enumerates the builders: every literal a parameter takes, placeholders otherwise', () => {
    const { names, unsampled } = builtSubjects();
    // A builder listed here transforms an argument: give it SAMPLE_ARGS in contract-names.ts.
    expect(unsampled).toEqual([]);
    const values = names.map((n) => normaliseSubject(n.value));
    expect(values).toContain('dirigent.discord.evt.<>.<>.reaction.removed');
    expect(values).toContain('dirigent.tool.discussion-complete');
    expect(values).toContain('dirigent.router.evt.<>.<>.followup');
    expect(values).toContain('dirigent.relay.<>.turn.check');
  });

  it('reads placeholders either way, and notices a name that is gone', () => {
    const spelled = doc.replace(/<channelId>/g, '<c>').replace(/<guildId>/g, '<g>');
    expect(undocumented(spelled)).toEqual([]);
    const without = doc
      .split('\n')
      .filter((line) => !line.includes('`dirigent.memory.forget`'))
      .join('\n');
    expect(undocumented(without)).toEqual(['dirigent.memory.forget (Subjects.memory.forget)']);
  });
});
