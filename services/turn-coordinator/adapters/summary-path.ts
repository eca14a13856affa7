import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

export const SUMMARY_DIR = 'discussion-summary';

export type SummaryPathCheck =
  | { ok: true; path: string }
  | { ok: false; reason: 'no-workspace' | 'outside' | 'missing' | 'not-a-file'; message: string };

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..');
};

/**
 * Confines a discussion summary to `<workspace>/discussion-summary/`: relative paths are
 * read from the workspace, `..` segments and absolute paths elsewhere are refused, and the
 * file's real path (symlinks resolved) must still lie inside the summary directory.
 *
 * @example
 * await checkSummaryPath('/ws', 'discussion-summary/topic.md'); // { ok: true, path: '/ws/discussion-summary/topic.md' }
 * await checkSummaryPath('/ws', '../etc/passwd'); // { ok: false, reason: 'outside', ... }
 */
export async function checkSummaryPath(
  workspace: string | undefined,
  input: string,
): Promise<SummaryPathCheck> {
  if (!workspace) {
    return { ok: false, reason: 'no-workspace', message: 'DIRIGENT_WORKSPACE is not configured' };
  }
  if (input.split(/[\\/]/).includes('..')) {
    return { ok: false, reason: 'outside', message: 'the summary path must not contain ..' };
  }
  const root = resolve(workspace, SUMMARY_DIR);
  const candidate = isAbsolute(input) ? resolve(input) : resolve(workspace, input);
  if (!inside(root, candidate)) {
    return { ok: false, reason: 'outside', message: `the summary must be inside ${root}` };
  }
  let real: string;
  let realRoot: string;
  try {
    real = await realpath(candidate);
    realRoot = await realpath(root);
  } catch {
    return { ok: false, reason: 'missing', message: `no summary file at ${candidate}` };
  }
  if (!inside(realRoot, real)) {
    return {
      ok: false,
      reason: 'outside',
      message: 'the summary path leads outside its directory',
    };
  }
  if (!(await stat(real)).isFile()) {
    return { ok: false, reason: 'not-a-file', message: `${candidate} is not a file` };
  }
  return { ok: true, path: candidate };
}
