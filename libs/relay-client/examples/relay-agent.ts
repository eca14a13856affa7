/**
 * A minimal agent runtime on the relay client: it hears its grants, checks that the turn
 * is still its own, "thinks", and reports the turn complete.
 *
 *   npm run build
 *   NATS_URL=nats://127.0.0.1:4222 AGENT_ID=home-developer \
 *     node dist/libs/relay-client/examples/relay-agent.js
 *
 * `RELAY_AGENT_REPLY` is the text it answers with (default `NO_REPLY`, an empty turn). A
 * real runtime posts its reply to Discord under its own bot account before completing the
 * turn; the coordinator then waits for that message to arrive (delivery confirmation).
 */
import { randomUUID } from 'node:crypto';
import { RelayClient } from '../src';

async function main(): Promise<void> {
  const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const agentId = process.env.AGENT_ID;
  if (!agentId) {
    console.error('config error: AGENT_ID is required');
    process.exit(2);
  }
  const reply = process.env.RELAY_AGENT_REPLY ?? 'NO_REPLY';
  const relay = await RelayClient.connect(url, { name: `relay-agent-${agentId}` });
  await relay.onGranted({
    durable: `relay-agent-${agentId}`,
    agentId,
    // Unlimited deliveries: on a relay, a pull answered while the leaf link is cut counts as one.
    maxDeliver: -1,
    handler: async (grant) => {
      const check = await relay.checkTurn({ ...grant, agentId });
      console.log(JSON.stringify({ msg: 'granted', turnId: grant.turnId, allowed: check.allowed }));
      if (!check.allowed) return;
      await relay.completeTurn({
        guildId: grant.guildId,
        channelId: grant.channelId,
        agentId,
        runId: randomUUID(),
        text: reply,
        turnId: grant.turnId,
      });
      console.log(JSON.stringify({ msg: 'completed', turnId: grant.turnId, text: reply }));
    },
  });
  console.log(JSON.stringify({ msg: 'relay agent ready', agentId }));
  const stop = async () => {
    await relay.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

void main().catch((e: Error) => {
  console.error(`relay agent failed: ${e.message}`);
  process.exit(1);
});
