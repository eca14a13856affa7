import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  freePort,
  spawnNode,
  testDatabaseUrl,
  testNatsUrl,
  waitFor,
  type Spawned,
} from '@dirigent/testing';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: { stringValue?: string } }[];
  links?: { traceId: string; spanId: string }[];
}

/** A local OTLP/HTTP receiver: decodes the JSON exports the SDK posts to /v1/traces. */
async function otlpReceiver(): Promise<{ server: Server; url: string; spans: OtlpSpan[] }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const rs of body.resourceSpans) {
          for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, spans };
}

const attr = (s: OtlpSpan, key: string) =>
  s.attributes?.find((a) => a.key === key)?.value.stringValue;

/**
 * Traces over OTLP (`npm run build` first): the five services as `npm start` runs them (one
 * process, the playground's local Discord), exporting to a local receiver. Dit, the router's
 * built-in agent, is called by name in the chat channel; the trace of that human message
 * holds the ingest's publish, the coordinator's handling, the router's, the gateway's model
 * call and the ingest's execution of the reply, every span's parent in the same trace. Dit
 * speaks when its grant comes, first or after demo agents that pass: their completions go
 * through the relay client, which carries the grant's trace on, so Dit's turn is in the
 * human message's trace wherever it falls in the order.
 */
describe('OpenTelemetry traces across NATS', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let child: Spawned | undefined;
  let playgroundUrl = '';

  beforeAll(async () => {
    receiver = await otlpReceiver();
    const ports: Record<string, string> = {};
    for (const v of [
      'PLAYGROUND_PORT',
      'DISCORD_INGEST_PORT',
      'TURN_COORDINATOR_PORT',
      'ROUTER_PORT',
      'MEMORY_PORT',
      'LLM_GATEWAY_PORT',
    ]) {
      ports[v] = String(await freePort());
    }
    child = spawnNode('dist/services/dirigent/main.js', {
      ...ports,
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      DIRIGENT_DATA_DIR: `/tmp/dirigent-traces-${process.pid}`,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      DIRIGENT_MEMORY_EMBEDDER: 'local',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    await child.waitForLine('Dirigent is running:', 90_000);
    playgroundUrl = /Open the playground: (\S+)/.exec(child.output())![1];
  });

  afterAll(async () => {
    await child?.kill('SIGTERM');
    await new Promise((r) => receiver?.server.close(r));
  });

  it('one human message is one trace: ingest → coordinator → router → gateway → ingest', async () => {
    const state = (await (await fetch(`${playgroundUrl}/api/state`)).json()) as {
      chatChannelId?: string;
      channels?: { id: string; name: string }[];
    };
    const channelId =
      state.chatChannelId ?? state.channels?.find((c) => c.name.includes('chat'))?.id;
    expect(channelId).toBeDefined();
    const res = await fetch(`${playgroundUrl}/api/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Dit, what shall we build today?' }),
    });
    expect(res.ok).toBe(true);

    const complete = (traceId: string) => {
      const t = receiver.spans.filter((s) => s.traceId === traceId);
      const has = (p: (s: OtlpSpan) => boolean) => t.some(p);
      // Joined, not merely sharing an id: every span but the root has its parent in the
      // trace (a parent ends, and is exported, after its children).
      const byId = new Map(t.map((s) => [s.spanId, s]));
      const ancestors = (s: OtlpSpan): OtlpSpan[] => {
        const up = s.parentSpanId ? byId.get(s.parentSpanId) : undefined;
        return up ? [up, ...ancestors(up)] : [];
      };
      // Made by Dit's turn: under the router's handling of its grant.
      const ofDitsTurn = (s: OtlpSpan) =>
        ancestors(s).some((a) => a.name === 'consume router-turn-granted');
      return (
        t.every((s) => !s.parentSpanId || byId.has(s.parentSpanId)) &&
        has((s) => s.name.startsWith('consume turn-coordinator')) &&
        has((s) => s.name === 'rpc dirigent.llm.chat') &&
        has((s) => s.name === 'model chat' && ofDitsTurn(s)) &&
        has((s) => s.name === 'consume discord-ingest-commands' && ofDitsTurn(s))
      );
    };
    const completed = () =>
      receiver.spans
        .filter(
          (s) =>
            s.name.startsWith('publish dirigent.discord.evt.') &&
            s.name.endsWith('.message.created') &&
            attr(s, 'dirigent.service') === 'discord-ingest' &&
            !s.parentSpanId,
        )
        .map((r) => r.traceId)
        .find(complete);
    const traceId = await waitFor(
      completed,
      60_000,
      500,
      'a trace from the human message to the reply sent',
    );
    const trace = receiver.spans.filter((s) => s.traceId === traceId);
    expect(trace.filter((s) => !s.parentSpanId)).toHaveLength(1);
    const services = new Set(trace.map((s) => attr(s, 'dirigent.service')).filter(Boolean));
    for (const s of ['discord-ingest', 'turn-coordinator', 'router']) expect(services).toContain(s);

    // Dit's webhook reply cannot be tied to its account: its turn ends at the coordinator's
    // delivery timeout, a durable timer scheduled in this trace, whose firing starts a trace
    // of its own linked back to it.
    const inTrace = (spanId: string) =>
      receiver.spans.some((s) => s.traceId === traceId && s.spanId === spanId);
    const firing = await waitFor(
      () =>
        receiver.spans.find(
          (s) =>
            s.name.startsWith('timer dirigent.timer.fired.turn-coordinator.') &&
            s.links?.some((l) => l.traceId === traceId && inTrace(l.spanId)),
        ),
      30_000,
      500,
      'the delivery timeout linked to the trace',
    );
    expect(firing.traceId).not.toBe(traceId);
    expect(firing.parentSpanId).toBeFalsy();
  });
});
