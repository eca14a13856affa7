import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultLlmConfig } from '@dirigent/llm';

/**
 * Writes the playground's model-gateway configuration: the gateway's built-in offline one
 * (speaking purposes answer with the offline participant model, the rest pass), as a file
 * a newcomer can edit to put a real model behind a purpose.
 */
export function writeLlmConfig(dir?: string): string {
  const path = join(dir ?? mkdtempSync(join(tmpdir(), 'dirigent-playground-')), 'llm.json');
  writeFileSync(path, JSON.stringify(defaultLlmConfig(), null, 2));
  return path;
}
