import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { testNatsUrl } from '@dirigent/testing';
import { ensureNats } from '.';

describe('embedded NATS for npm start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dirigent-nats-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('uses a server that answers without starting one', async () => {
    const nats = await ensureNats(testNatsUrl(), dir);
    expect(nats.embedded).toBe(false);
    await nats.stop();
  });

  it('starts nats-server with JetStream when nothing answers on a local URL', async () => {
    const url = `nats://127.0.0.1:${20000 + Math.floor(Math.random() * 20000)}`;
    const nats = await ensureNats(url, dir);
    try {
      expect(nats.embedded).toBe(true);
      const nc = await connect({ servers: url });
      const jsm = await jetstreamManager(nc);
      const info = await jsm.getAccountInfo();
      expect(info.limits).toBeDefined();
      await nc.close();
    } finally {
      await nats.stop();
    }
  });
});
