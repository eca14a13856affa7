import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The repository's root (this file is `test/docs/markdown.ts`). */
export const ROOT = join(__dirname, '..', '..');

export const readDoc = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The text of every inline code span of a Markdown text, fenced blocks left out. */
export function codeSpans(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1].trim());
}

/** The targets of the Markdown links `[text](target)` of a text, fenced blocks left out. */
export function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^()\s]+)\)/g)].map((m) => m[1]);
}

/**
 * A subject or wire name with its placeholders made alike: `<guildId>`, `<g>` and `<id>` all
 * read `<>`, so a doc may spell a token either way.
 */
export const normaliseSubject = (s: string): string => s.trim().replace(/<[^<>\s]*>/g, '<>');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`. */
export const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

export const anchorsOf = (markdown: string): Set<string> =>
  new Set(
    [...markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
      anchorOf(m[1].replace(/`/g, '')),
    ),
  );

/** Every Markdown file of the repository (not node_modules, dist or dot folders), relative. */
export function markdownFiles(dir = ROOT): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') {
      continue;
    }
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(path));
    else if (entry.name.endsWith('.md')) out.push(relative(ROOT, path));
  }
  return out.sort();
}
