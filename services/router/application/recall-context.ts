/** A rendered memory line without its `[#channel time]` tag: who said what. */
const said = (line: string) => line.replace(/^\[[^\]]*\]\s*/, '').trim();

/**
 * The lines of `recalled` (a lens that searched memory for the question) that `context` (the
 * turn's own lens) does not already hold, under their headings, appended to `context`.
 * A heading left without a line is dropped; either side may be empty.
 *
 * @example
 * withRecalled('## Live transcript\n[#1] Ada: hi', '## From the archive\n[#1 2026-…] Bo: pizza on friday')
 * // '## Live transcript\n[#1] Ada: hi\n\n## From the archive\n[#1 2026-…] Bo: pizza on friday'
 */
export function withRecalled(context: string, recalled: string): string {
  const held = new Set(context.split('\n').map(said).filter(Boolean));
  const out: string[] = [];
  let heading: string | undefined;
  for (const line of recalled.split('\n')) {
    if (/^##\s/.test(line)) heading = line;
    else if (line.trim() && !held.has(said(line))) {
      if (heading) out.push(...(out.length ? ['', heading] : [heading]));
      heading = undefined;
      out.push(line);
      held.add(said(line));
    }
  }
  if (!out.length) return context;
  return context.trim() ? `${context}\n\n${out.join('\n')}` : out.join('\n');
}
