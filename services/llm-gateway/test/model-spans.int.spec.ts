import { Subjects } from '@dirigent/contracts';
import { Messaging, startUnexportedTracing, tracingEnabled } from '@dirigent/messaging';
import { KeptSpans, snowflake, waitFor } from '@dirigent/testing';
import { clientFor, gatewaySuite } from './harness';

/**
 * The gateway's model calls as spans of the caller's trace. Over NATS: the request, the
 * gateway's answer to it, and inside that the model call (`model chat`, `model embed`).
 * Over HTTP (the OpenAI client with a W3C `traceparent` header): the server span of the
 * route, child of the caller's span, and inside that the same model call span.
 */
describe('llm-gateway model calls as spans (SDK loaded, nothing exported)', () => {
  const t = gatewaySuite();
  const kept = new KeptSpans();
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

  /** A caller's span, as an upstream service would send it in `traceparent`. */
  const callerSpan = () => {
    const hex = (n: number) =>
      Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
    const traceId = hex(32);
    const spanId = hex(16);
    return { traceId, spanId, headers: { traceparent: `00-${traceId}-${spanId}-01` } };
  };

  /** The route's server span in the caller's trace, and the model call span beneath it. */
  const servedOverHttp = async (
    caller: ReturnType<typeof callerSpan>,
    route: string,
    model: string,
  ) => {
    const inTrace = (name: string) =>
      kept.spans.find((s) => s.name === name && s.spanContext().traceId === caller.traceId);
    // The client may read the last byte before the gateway ends its spans.
    const server = await waitFor(async () => inTrace(`POST ${route}`));
    expect(server.parentSpanContext?.spanId).toBe(caller.spanId);
    const call = (await waitFor(async () => inTrace(model)))!;
    expect(call.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    return call;
  };

  it('makes the HTTP route a span of the traceparent sent and the model call its child', async () => {
    const guildId = snowflake();
    const client = clientFor(t.gw, guildId);
    const plain = callerSpan();
    const res = await client.chat.completions.create(
      { model: 'purpose:agent', messages: [{ role: 'user', content: 'hi' }] },
      { headers: plain.headers },
    );
    expect(res.choices[0].message.content).toBe('upstream says hi to gpt-4o-mini');
    const chat = await servedOverHttp(plain, '/v1/chat/completions', 'model chat');
    expect(chat.attributes).toMatchObject({
      'dirigent.guild_id': guildId,
      'dirigent.purpose': 'agent',
    });

    const embedded = callerSpan();
    const vectors = await client.embeddings.create(
      { model: 'purpose:embed', input: 'x', encoding_format: 'float' },
      { headers: embedded.headers },
    );
    expect(vectors.data).toHaveLength(1);
    const embed = await servedOverHttp(embedded, '/v1/embeddings', 'model embed');
    expect(embed.attributes).toMatchObject({ 'dirigent.guild_id': guildId });
  });

  it("ends a streamed chat's model span when the stream ends, not before", async () => {
    const streamed = callerSpan();
    let release!: () => void;
    const tail = new Promise<void>((r) => (release = r));
    t.primary.behave = () => ({ kind: 'ok', tailAfter: tail });
    try {
      const stream = await clientFor(t.gw, snowflake()).chat.completions.create(
        { model: 'gpt-primary', messages: [{ role: 'user', content: 'stream' }], stream: true },
        { headers: streamed.headers },
      );
      const chunks = stream[Symbol.asyncIterator]();
      const first = await chunks.next();
      expect(first.value?.choices[0]?.delta.content).toBe('upstream ');
      // The first chunk is out, the upstream holds the end: the spans are still open.
      const ended = kept.spans.filter((s) => s.spanContext().traceId === streamed.traceId);
      expect(ended.map((s) => s.name)).toEqual([]);
      release();
      let text = first.value!.choices[0].delta.content!;
      for (let c = await chunks.next(); !c.done; c = await chunks.next())
        text += c.value.choices[0]?.delta.content ?? '';
      expect(text).toBe('upstream says hi to gpt-4o-mini');
      await servedOverHttp(streamed, '/v1/chat/completions', 'model chat');
    } finally {
      release();
      t.primary.behave = () => ({ kind: 'ok' });
    }
  });
});
