import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSummaryPath } from './summary-path';

describe('checkSummaryPath', () => {
  const ws = mkdtempSync(join(tmpdir(), 'dirigent-ws-'));
  const dir = join(ws, 'discussion-summary');
  const outside = mkdtempSync(join(tmpdir(), 'dirigent-outside-'));
  mkdirSync(join(dir, 'nested'), { recursive: true });
  writeFileSync(join(dir, 'a.md'), 'summary');
  writeFileSync(join(dir, 'nested', 'b.md'), 'summary');
  writeFileSync(join(ws, 'notes.md'), 'not a summary');
  writeFileSync(join(outside, 'secret.md'), 'secret');
  symlinkSync(join(outside, 'secret.md'), join(dir, 'link-out.md'));
  symlinkSync(join(dir, 'a.md'), join(dir, 'link-in.md'));
  symlinkSync(outside, join(dir, 'dir-out'));

  it.each([
    ['discussion-summary/a.md', join(dir, 'a.md')],
    [join(dir, 'nested', 'b.md'), join(dir, 'nested', 'b.md')],
    ['discussion-summary/link-in.md', join(dir, 'link-in.md')],
  ])('accepts %s', async (input, path) => {
    expect(await checkSummaryPath(ws, input)).toEqual({ ok: true, path });
  });

  it.each([
    ['discussion-summary/../notes.md', 'outside'],
    ['../x/discussion-summary/a.md', 'outside'],
    ['notes.md', 'outside'],
    [join(outside, 'secret.md'), 'outside'],
    ['/etc/hostname', 'outside'],
    ['discussion-summary', 'outside'],
    ['discussion-summary/link-out.md', 'outside'],
    ['discussion-summary/dir-out/secret.md', 'outside'],
    ['discussion-summary/missing.md', 'missing'],
    ['discussion-summary/nested', 'not-a-file'],
  ])('refuses %s (%s)', async (input, reason) => {
    expect(await checkSummaryPath(ws, input)).toMatchObject({ ok: false, reason });
  });

  it('refuses everything without a workspace', async () => {
    expect(await checkSummaryPath(undefined, 'discussion-summary/a.md')).toMatchObject({
      ok: false,
      reason: 'no-workspace',
    });
  });
});
