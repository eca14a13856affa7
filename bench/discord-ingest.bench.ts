import { Subjects } from '@dirigent/contracts';
import type { FakeMessage } from '@dirigent/discord-fake';
import { waitFor } from '@dirigent/testing';
import { GatewayIngest } from '../services/discord-ingest/discord-ingest.module';
import { startHarness } from '../services/discord-ingest/test/harness';
import { percentile, round, type BenchResult } from './stats';

const GATEWAY_MESSAGES = 2000;
const COMMANDS = 200;
const TIMEOUT_MS = 60_000;
/** Below discord.js's global 50 requests/s, so the sequential figure is latency, not throttling. */
const COMMAND_GAP_MS = 25;

/**
 * Discord ingest throughput and latency through the local Discord, on loopback only:
 * gateway MESSAGE_CREATE → JetStream (messages/s), and `send-message` on JetStream → the
 * REST call arriving at Discord (p50/p99 ms, one command every 25 ms; plus the rate of a
 * burst, which discord.js caps at Discord's global 50 requests/s).
 * Needs NATS (`NATS_URL`) and Postgres (`DATABASE_URL`), as the service does.
 */
export async function benchDiscordIngest(): Promise<BenchResult> {
  // The same local Discord + ingest + NATS set-up as the e2e tests.
  const h = await startHarness();
  const { discord, guild, nats } = h;
  const human = h.bob;
  const inbound = discord.createChannel(guild.id, { name: 'inbound' });
  const outbound = discord.createChannel(guild.id, { name: 'outbound' });
  const until = (check: () => boolean, what: string) => waitFor(check, TIMEOUT_MS, 2, what);
  try {
    const ingest = h.app.get(GatewayIngest);

    // Gateway → JetStream.
    const base = ingest.published;
    const started = process.hrtime.bigint();
    for (let i = 0; i < GATEWAY_MESSAGES; i++) {
      discord.postMessage({ channelId: inbound.id, authorId: human.id, content: `m${i}` });
    }
    await until(() => ingest.published - base >= GATEWAY_MESSAGES, 'gateway messages');
    const gatewaySeconds = Number(process.hrtime.bigint() - started) / 1e9;

    // Command → REST, one at a time.
    const arrivals = new Map<string, bigint>();
    const onCreated = (m: FakeMessage) => {
      if (m.channelId === outbound.id) arrivals.set(m.content, process.hrtime.bigint());
    };
    discord.on('messageCreated', onCreated);
    const latencies: number[] = [];
    for (let i = 0; i < COMMANDS; i++) {
      const content = `c${i}`;
      const t0 = process.hrtime.bigint();
      await nats.publishEvent(Subjects.discord.cmdSendMessage, 'send-message', {
        guildId: guild.id,
        channelId: outbound.id,
        content,
        purpose: 'agent-reply',
      });
      await until(() => arrivals.has(content), `command ${i}`);
      latencies.push(Number(arrivals.get(content)! - t0) / 1e6);
      await new Promise((r) => setTimeout(r, COMMAND_GAP_MS));
    }
    // A burst: all published at once; discord.js holds Discord's global 50 requests/s.
    const burstStart = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: COMMANDS }, (_, i) =>
        nats.publishEvent(Subjects.discord.cmdSendMessage, 'send-message', {
          guildId: guild.id,
          channelId: outbound.id,
          content: `b${i}`,
          purpose: 'agent-reply',
        }),
      ),
    );
    await until(() => arrivals.has(`b${COMMANDS - 1}`), 'command burst');
    const burstSeconds = Number(process.hrtime.bigint() - burstStart) / 1e9;
    discord.off('messageCreated', onCreated);

    return {
      gateway_messages: GATEWAY_MESSAGES,
      gateway_to_jetstream_msgs_per_s: Math.round(GATEWAY_MESSAGES / gatewaySeconds),
      commands: COMMANDS,
      command_to_rest_p50_ms: round(percentile(latencies, 50), 2),
      command_to_rest_p99_ms: round(percentile(latencies, 99), 2),
      command_burst_per_s: Math.round(COMMANDS / burstSeconds),
    };
  } finally {
    await h.stop();
  }
}
