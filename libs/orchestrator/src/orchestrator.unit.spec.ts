import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { aggregateResults } from './aggregate';
import { binaryProblem, substituteArgs } from './cli';
import { mapLimit } from './limit';
import { splitForDiscord } from '@dirigent/contracts';
import { delegationTools, enabledAgents } from './prompt';
import type { AgentResult, OrchestratorSettings } from './types';
import { ensureSessionDir, sessionDir, sessionDirName } from './workspace';

const result = (over: Partial<AgentResult>): AgentResult => ({
  agentName: 'Coding',
  agentType: 'coding',
  status: 'success',
  output: 'done',
  durationMs: 10,
  ...over,
});

describe('aggregateResults (the seed)', () => {
  it('answers one result with its output alone', () => {
    const r = aggregateResults([result({ output: 'fn main() {}' })], 'm1');
    expect(r.payloads).toEqual([{ text: 'fn main() {}' }]);
    expect(r.meta).toEqual({
      durationMs: 10,
      orchestratorModel: 'm1',
      delegatedAgents: ['coding'],
    });
  });

  it('labels several results by agent, errors as isError payloads, duration of the slowest', () => {
    const r = aggregateResults(
      [
        result({ durationMs: 30 }),
        result({ agentName: 'Research', agentType: 'research', output: 'facts', durationMs: 50 }),
        result({
          agentName: 'General',
          agentType: 'general',
          status: 'error',
          output: '',
          errorMessage: 'boom',
        }),
      ],
      'm1',
    );
    expect(r.payloads).toEqual([
      { text: '**Coding:**\ndone' },
      { text: '**Research:**\nfacts' },
      { text: '**General Error:**\nboom', isError: true },
    ]);
    expect(r.meta.durationMs).toBe(50);
    expect(r.meta.delegatedAgents).toEqual(['coding', 'research', 'general']);
    expect(r.agentResults).toHaveLength(3);
  });

  it('falls back to the output when an error has no message', () => {
    const r = aggregateResults([result({ status: 'error', output: 'partial' })], 'm');
    expect(r.payloads).toEqual([{ text: '**Coding Error:**\npartial', isError: true }]);
  });
});

describe('substituteArgs', () => {
  it('puts the task into exactly one argv element, whatever it contains', () => {
    const task = 'fix "it"; rm -rf / $(whoami) `id` && echo {task}';
    const argv = substituteArgs(['run', '{task}', '--model', 'x'], task);
    expect(argv).toEqual(['run', task, '--model', 'x']);
  });

  it('replaces {task} inside an element', () => {
    expect(substituteArgs(['--prompt={task}', 'exec'], 'a b')).toEqual(['--prompt=a b', 'exec']);
  });
});

describe('session directories', () => {
  const root = mkdtempSync(join(tmpdir(), 'orch-ws-'));

  it('keeps a plain session id as it is', () => {
    expect(sessionDirName('123456789012345678')).toBe('123456789012345678');
    expect(sessionDir(root, 'abc')).toBe(join(root, 'orchestrator', 'abc'));
  });

  it.each(['../../etc', '..', '.', '/etc/passwd', 'a/../../b', 'x\\..\\y', '', 'ü', '\0'])(
    'confines %j under the workspace',
    (id) => {
      const dir = sessionDir(root, id);
      const rel = relative(join(root, 'orchestrator'), dir);
      expect(rel).not.toMatch(/^\.\./);
      expect(rel).not.toContain(sep);
      expect(rel.length).toBeGreaterThan(0);
      expect(rel).toMatch(/^[A-Za-z0-9_-]+$/);
    },
  );

  it('keeps distinct ids apart after sanitising', () => {
    expect(sessionDirName('a/b')).not.toBe(sessionDirName('a_b'));
    expect(sessionDirName('a/b')).not.toBe(sessionDirName('a:b'));
  });

  it('refuses a symlinked session directory', async () => {
    mkdirSync(join(root, 'orchestrator'), { recursive: true });
    symlinkSync(tmpdir(), join(root, 'orchestrator', 'linked'));
    await expect(ensureSessionDir(root, 'linked')).rejects.toThrow(/symlink/);
    await expect(ensureSessionDir(root, 'fresh')).resolves.toBe(
      join(root, 'orchestrator', 'fresh'),
    );
  });
});

describe('binaryProblem', () => {
  it('finds executables on the PATH and reports what is missing', () => {
    expect(binaryProblem('sh')).toBeNull();
    expect(binaryProblem('/bin/sh')).toBeNull();
    expect(binaryProblem('no-such-cli-xyz')).toMatch(/not an executable on the PATH/);
    const plain = join(mkdtempSync(join(tmpdir(), 'orch-bin-')), 'not-exec');
    writeFileSync(plain, 'echo', { mode: 0o644 });
    expect(binaryProblem(plain)).toMatch(/missing or not executable/);
    expect(binaryProblem(tmpdir())).toMatch(/missing or not executable/);
    expect(binaryProblem('')).toMatch(/no binary/);
  });
});

describe('mapLimit', () => {
  it('runs at most limit at once and keeps the order', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 3, 2, 4], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, n * 5));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 30, 20, 40]);
    expect(peak).toBe(2);
  });
});

describe('tools', () => {
  it('offers only the enabled agents, each taking { task }', () => {
    const s: OrchestratorSettings = {
      parallelExecution: true,
      maxParallelAgents: 3,
      workspace: '/tmp',
      agents: {
        coding: { enabled: false, binary: 'x', args: [], timeoutMs: 1 },
        research: { enabled: true },
      },
    };
    const tools = delegationTools(enabledAgents(s)) as any[];
    expect(tools.map((t) => t.function.name)).toEqual(['delegate_to_research']);
    expect(tools[0].function.parameters.required).toEqual(['task']);
  });
});

describe('splitForDiscord', () => {
  it('keeps every part within 2,000 characters and loses no word', () => {
    const words = Array.from({ length: 900 }, (_, i) => `word${i}`).join(' ');
    const parts = splitForDiscord(words);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(2000);
    expect(parts.join(' ')).toBe(words);
  });

  it('cuts hard when there is no break', () => {
    expect(splitForDiscord('a'.repeat(4500)).map((p) => p.length)).toEqual([2000, 2000, 500]);
    expect(splitForDiscord('short')).toEqual(['short']);
    expect(splitForDiscord('   ')).toEqual([]);
  });
});
