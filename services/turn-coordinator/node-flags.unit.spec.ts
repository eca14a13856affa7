import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { COORDINATOR_NODE_FLAGS } from './node-flags';

const root = join(__dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const MAIN = 'dist/services/turn-coordinator/main.js';
const expected = ['node', ...COORDINATOR_NODE_FLAGS, MAIN];

interface Container {
  name: string;
  command?: string[];
}

describe('the turn coordinator runs with its node flags wherever it is started', () => {
  it('in the Kubernetes Deployment', () => {
    const docs = parseAllDocuments(read('deploy/k8s/turn-coordinator.yaml')).map(
      (d) =>
        d.toJS() as { kind?: string; spec?: { template: { spec: { containers: Container[] } } } },
    );
    const deployment = docs.find((d) => d.kind === 'Deployment');
    const container = deployment?.spec?.template.spec.containers.find(
      (c) => c.name === 'turn-coordinator',
    );
    expect(container?.command).toEqual(expected);
  });

  it('in docker-compose.yml', () => {
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { command?: string[] }>;
    };
    expect(compose.services['turn-coordinator'].command).toEqual(expected);
  });

  it('in npm run start:turn-coordinator', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts['start:turn-coordinator']).toBe(expected.join(' '));
  });
});
