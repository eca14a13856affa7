import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultLlmConfig } from '@dirigent/llm';

/**
 * Writes a model-gateway configuration: the gateway's built-in one (every purpose answers
 * `no-reply`), plus the offline echo model for the demo agents (`agent`) and Dit's
 * synthesizer (`synth-*`).
 */
export function writeLlmConfig(dir?: string): string {
  const base = defaultLlmConfig();
  const config = {
    ...base,
    models: [
      ...base.models,
      {
        id: 'offline',
        provider: 'offline',
        upstream: 'echo',
        inputUsdPerMTok: 0,
        outputUsdPerMTok: 0,
      },
    ],
    purposes: {
      ...base.purposes,
      ...Object.fromEntries(
        ['agent', 'synth-low', 'synth-mid', 'synth-high'].map((p) => [p, { model: 'offline' }]),
      ),
    },
  };
  const path = join(dir ?? mkdtempSync(join(tmpdir(), 'dirigent-playground-')), 'llm.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}
