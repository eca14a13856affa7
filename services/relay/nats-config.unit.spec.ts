import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  leafServerConfig,
  masterAccountsConfig,
  relayImports,
  SERVICE_USERS_FILE,
} from './nats-config';
import { natsServerBinary } from './nats-server';

/** `nats-server -t`: the server's own parser checks the generated file. */
function serverAccepts(config: string): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'dirigent-nats-conf-'));
  try {
    const file = join(dir, 'nats.conf');
    writeFileSync(file, config);
    const r = spawnSync(natsServerBinary(), ['-t', '-c', file], { encoding: 'utf8' });
    return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('relay NATS configuration', () => {
  it('generates a master accounts block nats-server accepts, one account per relay', () => {
    const text = masterAccountsConfig({
      relays: [
        { instance: 'relay-a', password: 'a "quoted" secret' },
        {
          instance: 'b2',
          password: '$2a$11$PWIFAL8RsWyGI3jVZtO9Nu8.6jOxzxfZo7c/W0eLk017hjgUKWrhy',
        },
      ],
    });
    const checked = serverAccepts(`listen: "127.0.0.1:-1"\njetstream: enabled\n${text}`);
    expect(checked.output).not.toMatch(/error/i);
    expect(checked.ok).toBe(true);
    expect(text).toContain('RELAY_RELAY_A');
    expect(text).toContain('RELAY_B2');
    expect(text).toContain(
      'subject: "dirigent.relay.relay-a.turn.check" }, to: "dirigent.turn.check"',
    );
  });

  it('stamps the instance on every relayed request subject and imports only the grant stream', () => {
    const imports = relayImports('relay-a');
    for (const imp of imports.filter((i) => i.to)) {
      expect(imp.from.startsWith('dirigent.relay.relay-a.')).toBe(true);
    }
    const js = imports.filter((i) => i.from.startsWith('$JS.') && i.from !== '$JS.API.INFO');
    expect(js.every((i) => i.from.includes('DIRIGENT_TURN_GRANTED'))).toBe(true);
    expect(js.some((i) => /DELETE|STREAM/.test(i.from))).toBe(false);
  });

  it('refuses bad relay names, missing passwords and a relay listed twice', () => {
    expect(() => masterAccountsConfig({ relays: [{ instance: 'master', password: 'x' }] })).toThrow(
      /master/,
    );
    expect(() => masterAccountsConfig({ relays: [{ instance: 'A.b', password: 'x' }] })).toThrow(
      /instance/,
    );
    expect(() => masterAccountsConfig({ relays: [{ instance: 'a', password: '' }] })).toThrow(
      /needs a password/,
    );
    expect(() =>
      masterAccountsConfig({
        relays: [
          { instance: 'a', password: 'x' },
          { instance: 'a', password: 'y' },
        ],
      }),
    ).toThrow(/twice/);
  });

  it('generates a leaf config nats-server accepts, without JetStream of its own', () => {
    const text = leafServerConfig({
      masterLeafUrl: 'nats-leaf://relay-a:secret@master:7422',
      credsFile: '/etc/dirigent/relay-a.creds',
      port: 4223,
    });
    expect(text).toContain('jetstream: disabled');
    expect(text).toContain('default_js_domain: { "$G": "" }');
    const checked = serverAccepts(text);
    expect(checked.ok).toBe(true);
  });
});

describe('per-service NATS users (deploy/k8s)', () => {
  it('include the services’ users and let no client in without credentials', () => {
    const text = masterAccountsConfig({
      relays: [{ instance: 'relay-a', password: 'pw' }],
      serviceUsers: true,
    });
    expect(text).toContain(`    include ./${SERVICE_USERS_FILE}`);
    expect(text).not.toMatch(/no_auth_user|users: \[ \{ user: "dirigent"/);
    expect(text).toMatch(/leafnodes \{/);
  });

  it('need no relay, and then open no leaf port', () => {
    const text = masterAccountsConfig({ relays: [], serviceUsers: true });
    expect(text).not.toMatch(/leafnodes/);
    expect(text).toContain(`include ./${SERVICE_USERS_FILE}`);
  });
});

describe('deploy/nats/relays-accounts.conf', () => {
  it('is what the generator prints for one relay (the template stays in step with the code)', () => {
    const file = readFileSync(join(__dirname, '../../deploy/nats/relays-accounts.conf'), 'utf8');
    const body = file
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n');
    expect(body).toBe(
      masterAccountsConfig({ relays: [{ instance: 'relay-a', password: 'change-me' }] }),
    );
  });
});
