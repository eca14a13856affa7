import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, codeSpans, readDoc } from './markdown';

/**
 * The README's "Where things live" names every library and service folder, so a newcomer
 * meets each one there first.
 */

const HEADING = '## Where things live';

/** The folders of `libs/` and `services/`, as `libs/<name>`. */
function folders(): string[] {
  return ['libs', 'services'].flatMap((top) =>
    readdirSync(join(ROOT, top), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `${top}/${e.name}`),
  );
}

/** The folders the README's map leaves out. */
export function unmapped(readme: string, all: string[]): string[] {
  const start = readme.indexOf(HEADING);
  if (start < 0) return all;
  const rest = readme.slice(start + HEADING.length);
  const next = rest.search(/^## /m);
  const named = new Set(codeSpans(next < 0 ? rest : rest.slice(0, next)));
  return all.filter((f) => !named.has(f));
}

describe('the README maps every library and service', () => {
  it('names every folder of libs/ and services/ under "Where things live"', () => {
    // A folder listed here is missing from the README's map: add its row.
    expect(unmapped(readDoc('README.md'), folders())).toEqual([]);
  });

  it('notices a folder missing from the map, and one named only elsewhere', () => {
    const readme = [
      '## Where things live',
      '| `libs/contracts` | wire names |',
      '## More',
      'see `libs/skills`',
    ].join('\n');
    expect(unmapped(readme, ['libs/contracts', 'libs/skills'])).toEqual(['libs/skills']);
  });
});
