import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnNode, testDatabaseUrl, testNatsUrl, type Spawned } from '@dirigent/testing';

const PORTS = [
  'PLAYGROUND_PORT',
  'DISCORD_INGEST_PORT',
  'TURN_COORDINATOR_PORT',
  'ROUTER_PORT',
  'MEMORY_PORT',
  'LLM_GATEWAY_PORT',
];

const healthy = (port: string) =>
  fetch(`http://127.0.0.1:${port}/healthz`).then(
    (r) => r.status,
    () => 'refused',
  );

/**
 * `npm start` for the dev loop (`npm run build` first): `DIRIGENT_START_WITHOUT=router` starts
 * the other four and leaves the router's port free, and the environment the services were
 * given is in `<data dir>/services.env.json`, private, where `npm run dev -- router` reads it.
 */
describe('npm start leaves services out for a dev loop', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dirigent-start-without-'));
  const ports: Record<string, string> = {};
  let child: Spawned | undefined;

  beforeAll(async () => {
    for (const v of PORTS) ports[v] = String(await freePort());
  });
  afterAll(async () => {
    await child?.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (without: string) =>
    spawnNode('dist/services/dirigent/main.js', {
      ...ports,
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      DIRIGENT_DATA_DIR: dataDir,
      DIRIGENT_START_WITHOUT: without,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    });

  it('refuses an unknown service with one line and code 2', async () => {
    const wrong = start('routr');
    const code = await new Promise((r) => wrong.child.once('exit', r));
    expect(code).toBe(2);
    expect(wrong.output()).toContain('DIRIGENT_START_WITHOUT: unknown service routr');
  });

  it('starts the others, leaves the router port free and writes the environment', async () => {
    child = start('router');
    await child.waitForLine('Dirigent is running:', 120_000);
    expect(child.output()).toContain('left out (run apart): router');
    expect(await healthy(ports.MEMORY_PORT)).toBe(200);
    expect(await healthy(ports.ROUTER_PORT)).toBe('refused');

    const file = join(dataDir, 'services.env.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const env = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(env).toMatchObject({ NATS_URL: testNatsUrl(), DATABASE_URL: testDatabaseUrl() });
    // The playground's local Discord and generated configuration, for the service run apart.
    expect(env.DISCORD_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect(env.DIRIGENT_ROUTER_CONFIG).toContain(dataDir);
  });
});
