import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { BaseConfig } from '@dirigent/service-kit';
import { ROOT, codeSpans, readDoc } from './markdown';
import { productionSources } from './sources';

/**
 * docs/architecture.md § Configuration names every environment variable the services read:
 * the variables of each service's config class (what `loadConfig` validates) and every
 * `env.X` / `process.env.X` of the services' and libraries' production code (the relay, the
 * logger, `npm start`, provisioning). Tests, fixtures, examples and the bench are left out.
 */

const DOC = 'docs/architecture.md';

/** The variables each service's config class declares (its validated properties). */
async function configClassVariables(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const service of readdirSync(join(ROOT, 'services'))) {
    const file = join(ROOT, 'services', service, 'config.ts');
    if (!existsSync(file)) continue;
    const module = (await import(file)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (typeof value !== 'function' || !(value.prototype instanceof BaseConfig)) continue;
      const metadata = getMetadataStorage().getTargetValidationMetadatas(value, '', true, false);
      for (const m of metadata) found.set(m.propertyName, `services/${service}/config.ts`);
    }
  }
  return found;
}

/** `env.X` and `process.env.X` (or `env['X']`) in production code. */
function readVariables(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of [...productionSources('services'), ...productionSources('libs')]) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]+)\b/g)) {
      if (m[1] !== 'PATH') found.set(m[1], file);
    }
  }
  return found;
}

describe('docs/architecture.md: the configuration', () => {
  it('names every environment variable the services read', async () => {
    const documented = new Set(codeSpans(readDoc(DOC)));
    const variables = new Map([...readVariables(), ...(await configClassVariables())]);
    expect(variables.size).toBeGreaterThan(40);
    // A variable listed here is read by the code and missing from docs/architecture.md
    // § Configuration: add its row (default, meaning) to the table of its service.
    const missing = [...variables]
      .filter(([name]) => !documented.has(name))
      .map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });
});
