import { join } from 'node:path';
import { loadLlmConfig } from '@dirigent/llm';

/** The example the deployment mounts (deploy/llm) is a valid gateway configuration. */
describe('deploy/llm/llm-config.yaml', () => {
  it('parses and routes every known purpose', () => {
    const cfg = loadLlmConfig(join(__dirname, '../../deploy/llm/llm-config.yaml'));
    expect(Object.keys(cfg.purposes).sort()).toEqual(
      [
        'agent',
        'embed',
        'epoch-summarize',
        'extract',
        'router-classify',
        'steward',
        'subagent-research',
        'synth-high',
        'synth-low',
        'synth-mid',
      ].sort(),
    );
  });
});
