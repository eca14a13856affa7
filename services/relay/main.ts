/**
 * `npm run start:relay`: a Dirigent relay instance (docs/architecture.md, "Relay instances"). Runs
 * a leaf-node nats-server linked to the master, waits for the link, then the configured
 * agent runtimes against it. No Discord token, no database: the master holds every state.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RelayClient } from '@dirigent/relay-client';
import { RelayConfigError, readRelayConfig } from './config';
import { leafServerConfig } from './nats-config';
import { startNatsServer, type NatsServerProcess } from './nats-server';
import { RelayAgent } from './relay-agent';

const line = (msg: string, fields: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ at: new Date().toISOString(), msg, ...fields }));

async function main(): Promise<void> {
  let config;
  try {
    config = readRelayConfig(process.env);
  } catch (e) {
    if (!(e instanceof RelayConfigError)) throw e;
    console.error(`config error: ${e.message}`);
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), 'dirigent-relay-'));
  const leaf: NatsServerProcess = startNatsServer(
    leafServerConfig({
      masterLeafUrl: config.masterLeafUrl,
      credsFile: config.credsFile,
      port: config.port,
    }),
    config.port,
    dir,
  );
  await leaf.ready(60_000);
  console.log(`relay ready ${leaf.url}`);
  const relay = await RelayClient.connect(leaf.url, { name: 'dirigent-relay' });
  const agents = config.agents.map(
    (a) => new RelayAgent(relay, { ...a, takeTurn: () => config.reply }),
  );
  for (const agent of agents) {
    let told = false;
    await agent.start((reason) => {
      if (!told) line('waiting for the master to answer', { agentId: agent.opts.agentId, reason });
      told = true;
    });
    line('relay agent ready', { agentId: agent.opts.agentId });
  }
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all(agents.map((a) => a.stop()));
    await relay.close();
    await leaf.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

void main().catch((e: Error) => {
  console.error(`relay failed: ${e.message}`);
  process.exit(1);
});
