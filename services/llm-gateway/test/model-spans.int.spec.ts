import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { Subjects } from '@dirigent/contracts';
import { Messaging, startUnexportedTracing, tracingEnabled } from '@dirigent/messaging';
import { snowflake } from '@dirigent/testing';
import { gatewaySuite } from './harness';

/** Keeps every span ended, exported nowhere. */
class Kept implements SpanProcessor {
  readonly spans: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.spans.push(span);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The gateway's model calls over NATS as spans of the caller's trace: the request, the
 * gateway's answer to it, and inside that the model call (`model chat`, `model embed`).
 */
describe('llm-gateway model calls as spans (SDK loaded, nothing exported)', () => {
  const t = gatewaySuite();
  const kept = new Kept();
  let tracing: { shutdown(): Promise<void> } | undefined;
  beforeAll(async () => {
    tracing = await startUnexportedTracing('model-spans-test', kept);
  });
  afterAll(async () => {
    await tracing?.shutdown();
    expect(tracingEnabled()).toBe(false);
  });

  const traced = async (subj: string, data: object, model: string) => {
    const reply = await t.gw.app.get(Messaging).request<any>(subj, data);
    expect(reply.ok).toBe(true);
    const request = kept.spans.find((s) => s.name === `request ${subj}`)!;
    const trace = request.spanContext().traceId;
    const answer = kept.spans.find(
      (s) => s.name === `rpc ${subj}` && s.spanContext().traceId === trace,
    )!;
    expect(answer.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    const call = kept.spans.find((s) => s.name === model && s.spanContext().traceId === trace)!;
    expect(call.parentSpanContext?.spanId).toBe(answer.spanContext().spanId);
    return call;
  };

  it('makes a model chat span and a model embed span under the answer', async () => {
    const guildId = snowflake();
    const chat = await traced(
      Subjects.llm.chat,
      {
        guildId,
        purpose: 'agent',
        request: { model: 'purpose:agent', messages: [{ role: 'user', content: 'hi' }] },
      },
      'model chat',
    );
    expect(chat.attributes).toMatchObject({ 'dirigent.guild_id': guildId });
    const embed = await traced(
      Subjects.llm.embed,
      { guildId, request: { model: 'purpose:embed', input: 'x', encoding_format: 'float' } },
      'model embed',
    );
    expect(embed.attributes).toMatchObject({ 'dirigent.guild_id': guildId });
  });
});
