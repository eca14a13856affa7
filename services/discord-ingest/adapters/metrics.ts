import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '@dirigent/messaging';

export const gatewayEvents = new Counter({
  name: 'dirigent_discord_events_published_total',
  help: 'Discord gateway events published to JetStream, by kind and path (live or catch-up)',
  labelNames: ['kind', 'path'] as const,
  registers: [metricsRegistry],
});

export const restCalls = new Counter({
  name: 'dirigent_discord_command_calls_total',
  help: 'Discord REST calls made for commands, by operation and outcome',
  labelNames: ['op', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const gatewayConnected = new Gauge({
  name: 'dirigent_discord_gateway_connected',
  help: '1 while the discord.js client is ready, else 0',
  registers: [metricsRegistry],
});

export const shardsOwned = new Gauge({
  name: 'dirigent_discord_shards_owned',
  help: 'Gateway shards this ingest replica holds the lease of and has connected',
  registers: [metricsRegistry],
});
