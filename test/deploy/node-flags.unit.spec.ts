import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { MEMORY_NODE_FLAGS } from '../../services/memory/node-flags';
import { COORDINATOR_NODE_FLAGS } from '../../services/turn-coordinator/node-flags';

const root = join(__dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Container {
  name: string;
  command?: string[];
}

describe.each([
  ['turn-coordinator', COORDINATOR_NODE_FLAGS],
  ['memory', MEMORY_NODE_FLAGS],
])('%s runs with its node flags wherever it is started', (service, flags) => {
  const expected = ['node', ...flags, `dist/services/${service}/main.js`];

  it('in the Kubernetes Deployment', () => {
    const docs = parseAllDocuments(read(`deploy/k8s/${service}.yaml`)).map(
      (d) =>
        d.toJS() as { kind?: string; spec?: { template: { spec: { containers: Container[] } } } },
    );
    const deployment = docs.find((d) => d.kind === 'Deployment');
    const container = deployment?.spec?.template.spec.containers.find((c) => c.name === service);
    expect(container?.command).toEqual(expected);
  });

  it('in docker-compose.yml', () => {
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { command?: string[] }>;
    };
    expect(compose.services[service].command).toEqual(expected);
  });

  it(`in npm run start:${service}`, () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts[`start:${service}`]).toBe(expected.join(' '));
  });
});
