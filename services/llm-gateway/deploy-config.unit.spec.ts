import { join } from 'node:path';
import { LLM_PURPOSES } from '@dirigent/contracts';
import { loadLlmConfig } from '@dirigent/llm';

/** The example the deployment mounts (deploy/llm) is a valid gateway configuration. */
describe('deploy/llm/llm-config.yaml', () => {
  it('parses and routes every purpose the services call', () => {
    const cfg = loadLlmConfig(join(__dirname, '../../deploy/llm/llm-config.yaml'));
    expect(LLM_PURPOSES.filter((p) => !cfg.purposes[p])).toEqual([]);
  });
});
