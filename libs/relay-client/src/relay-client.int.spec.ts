import { headers, type Msg } from '@nats-io/nats-core';
import {
  EnvelopeTypes,
  StreamSpecs,
  Subjects,
  TRACEPARENT_HEADER,
  envelope,
  subject,
  type TurnGranted,
} from '@dirigent/contracts';
import { NatsClient, ensureStream } from '@dirigent/messaging';
import { snowflake, testNatsUrl, uid, waitFor } from '@dirigent/testing';
import { RelayClient } from './relay-client';

/**
 * A grant's trace context goes on with what its handler does: the check-turn and the
 * completion it sends carry the grant's `traceparent` (the coordinator's spans for them, and
 * the next grant, join the trace of the message that started the cycle). Against a real
 * nats-server: the grant stream is provisioned, the coordinator's two subjects are answered
 * by a plain subscriber that keeps the headers it saw.
 */
describe('RelayClient trace context', () => {
  const guildId = snowflake();
  const channelId = snowflake();
  const agentId = uid('agent');
  const durable = uid('relay-trace').replace(/[^A-Za-z0-9_-]/g, '_');
  let nats: NatsClient;
  let relay: RelayClient;
  const seen: { subject: string; traceparent: string }[] = [];

  beforeAll(async () => {
    nats = await NatsClient.connect({ url: testNatsUrl(), name: 'relay-trace-test' });
    await ensureStream(nats.jsm, StreamSpecs.turnGranted);
    const answer = (_e: unknown, m: Msg) => {
      seen.push({ subject: m.subject, traceparent: m.headers?.get(TRACEPARENT_HEADER) ?? '' });
      m.respond(JSON.stringify({ ok: true, data: { allowed: true } }));
    };
    nats.nc.subscribe(Subjects.turn.check, { callback: answer });
    nats.nc.subscribe(subject.turnComplete(channelId), { callback: answer });
    await nats.nc.flush();
    relay = await RelayClient.connect(testNatsUrl(), { name: 'relay-trace-agent' });
  });

  afterAll(async () => {
    await relay?.deleteDurable(durable).catch(() => undefined);
    await relay?.close();
    await nats?.close();
  });

  it("carries the grant's traceparent on the handler's calls, and none outside one", async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const handled: string[] = [];
    await relay.onGranted({
      durable,
      agentId,
      channelId,
      handler: async (g) => {
        await relay.checkTurn({ guildId: g.guildId, channelId: g.channelId, agentId });
        await relay.completeTurn({ ...g, runId: uid('run'), text: 'NO_REPLY' });
        handled.push(g.turnId);
      },
    });
    const grant: TurnGranted = {
      guildId,
      channelId,
      agentId,
      turnId: 't-1',
      cycle: 1,
      reason: 'wake',
    };
    const h = headers();
    h.set(TRACEPARENT_HEADER, traceparent);
    await nats.publisher.publish(
      subject.turnGranted(channelId),
      JSON.stringify(envelope(EnvelopeTypes.turnGranted, 'test', grant, { id: uid('grant') })),
      { headers: h },
    );
    await waitFor(() => handled.length === 1, 10_000, 50, 'the grant handled');
    expect(seen).toEqual([
      { subject: Subjects.turn.check, traceparent },
      { subject: subject.turnComplete(channelId), traceparent },
    ]);

    await relay.checkTurn({ guildId, channelId, agentId });
    expect(seen[2]).toEqual({ subject: Subjects.turn.check, traceparent: '' });
  });
});
