import { createHash } from 'node:crypto';
import { lstat, mkdir } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

const UNSAFE = /[^A-Za-z0-9_-]/g;

/**
 * A session id as one safe directory name: letters, digits, `_` and `-` only (so no `..`,
 * no separators); when anything had to be replaced a short hash of the original keeps
 * distinct ids apart.
 *
 * @example
 * sessionDirName('123456789012345678'); // '123456789012345678'
 * sessionDirName('../../etc');           // '______etc-<hash>'
 */
export function sessionDirName(sessionId: string): string {
  const clean = sessionId.replace(UNSAFE, '_').slice(0, 100);
  if (clean === sessionId && clean.length > 0) return clean;
  const hash = createHash('sha256').update(sessionId).digest('hex').slice(0, 12);
  return `${clean}-${hash}`;
}

/** The session's directory under `<workspace>/orchestrator/`, refusing anything outside. */
export function sessionDir(workspace: string, sessionId: string): string {
  const root = resolve(workspace, 'orchestrator');
  const dir = resolve(root, sessionDirName(sessionId));
  const rel = relative(root, dir);
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.includes(sep)) {
    throw new Error(`session directory escapes the workspace: ${sessionId}`);
  }
  return dir;
}

/** Creates (or reuses) the session's directory; a symlink there is refused. */
export async function ensureSessionDir(workspace: string, sessionId: string): Promise<string> {
  const dir = sessionDir(workspace, sessionId);
  await mkdir(dir, { recursive: true });
  if ((await lstat(dir)).isSymbolicLink()) {
    throw new Error(`session directory is a symlink: ${dir}`);
  }
  return dir;
}
