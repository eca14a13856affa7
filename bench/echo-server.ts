/**
 * The request/reply anchors as a process of their own (bench/anchors.ts): a raw @nats-io echo
 * on one subject and the same echo served by the messaging layer on another, both answering
 * what check-turn answers. The turn-coordinator bench starts it next to the coordinator's own
 * process, so that each server has a process to itself, as a deployed service does, and the
 * bench's clients time them from a third.
 *
 * `node dist/bench/echo-server.js <raw subject> <messaging subject>` with `NATS_URL`; prints
 * `ready` once both subscriptions are on the server, stops on SIGTERM or when its parent is
 * gone.
 */
import { CheckTurnRequest } from '@dirigent/contracts';
import { NatsClient } from '@dirigent/messaging';
import { nestEcho, rawEcho } from './anchors';

/** What both echoes answer: the shape of a check-turn refusal. */
export const echoReply = (p: { agentId?: unknown }) => ({
  allowed: false,
  currentSpeaker: p.agentId,
  tmState: 'active',
  mode: 'chat',
  dormant: false,
  multiMessage: false,
});

async function main(): Promise<void> {
  const [rawSubject, libSubject] = process.argv.slice(2);
  const url = process.env.NATS_URL;
  if (!rawSubject || !libSubject || !url) {
    console.error('usage: NATS_URL=… node dist/bench/echo-server.js <raw subject> <lib subject>');
    process.exit(2);
  }
  const client = await NatsClient.connect({ url, name: 'bench-echo' });
  rawEcho(client.nc, rawSubject, echoReply);
  const app = await nestEcho(client, libSubject, CheckTurnRequest, echoReply);
  await client.nc.flush();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await client.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void stop(), 1000).unref();
  process.stdout.write('ready\n');
}

if (require.main === module) {
  main().catch((e: Error) => {
    console.error(`echo-server: ${e.message}`);
    process.exit(1);
  });
}
