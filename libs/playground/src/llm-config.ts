import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { llmFromEnvironment } from '@dirigent/llm';

/**
 * Writes the playground's model-gateway configuration, as a file a newcomer can edit to put
 * a real model behind a purpose: the providers whose variables `env` sets
 * (`llmFromEnvironment`), else the gateway's built-in offline one (speaking purposes answer
 * with the offline participant model, the rest pass). Keys stay in the environment.
 */
export function writeLlmConfig(dir?: string, env: NodeJS.ProcessEnv = {}): string {
  const path = join(dir ?? mkdtempSync(join(tmpdir(), 'dirigent-playground-')), 'llm.json');
  writeFileSync(path, JSON.stringify(llmFromEnvironment(env).config, null, 2));
  return path;
}
