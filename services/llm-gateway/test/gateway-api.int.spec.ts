import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { MikroORM } from '@mikro-orm/postgresql';
import { Subjects } from '@dirigent/contracts';
import { offlineReply } from '@dirigent/llm';
import { Messaging, NatsClient } from '@dirigent/messaging';
import { snowflake, waitFor } from '@dirigent/testing';
import { clientFor, startGateway, TOKEN, gatewaySuite } from './harness';

describe('llm-gateway API (official openai client → gateway → fake upstreams)', () => {
  const t = gatewaySuite();

  const sql = async (q: string, params: unknown[]) =>
    (await t.gw.app.get(MikroORM).em.getConnection().execute(q, params, 'all')) as any[];

  it('answers a plain chat completion routed by purpose, with the key from the environment', async () => {
    const guild = snowflake();
    const client = clientFor(t.gw, guild);
    const res = await client.chat.completions
      .create({ model: 'purpose:agent', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
    expect(res.data.choices[0].message.content).toBe('upstream says hi to gpt-4o-mini');
    expect(res.data.model).toBe('gpt-primary');
    expect(res.data.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('x-dirigent-model')).toBe('gpt-primary');
    // the answer goes out with its length, not chunked
    expect(res.response.headers.get('transfer-encoding')).toBeNull();
    expect(Number(res.response.headers.get('content-length'))).toBe(
      Buffer.byteLength(JSON.stringify(res.data)),
    );
    const seen = t.primary.seen[t.primary.seen.length - 1];
    expect(seen.headers.authorization).toBe('Bearer sk-test-openai');
    expect(seen.body.model).toBe('gpt-4o-mini');
    expect(seen.body.max_tokens).toBe(4096);
    // the ledger and the spend row follow
    const rows = await waitFor(async () => {
      const r = await sql(`select * from llm_usage where guild_id = ?`, [guild]);
      return r.length ? r : undefined;
    });
    expect(rows[0]).toMatchObject({
      purpose: 'agent',
      model: 'gpt-primary',
      provider: 'oa-primary',
      input_tokens: 10,
      output_tokens: 5,
      outcome: 'ok',
    });
    expect(Number(rows[0].cost_usd)).toBeCloseTo((10 * 1 + 5 * 2) / 1e6, 9);
    await waitFor(async () => {
      const [s] = await sql(`select * from llm_guild_spend where guild_id = ?`, [guild]);
      return s && Number(s.reserved_micros) === 0 && Number(s.spent_micros) === 20;
    });
  });

  it('routes by the x-dirigent-purpose header over the model field', async () => {
    const client = clientFor(t.gw, snowflake(), { 'x-dirigent-purpose': 'steward' });
    const res = await client.chat.completions.create({
      model: 'anything',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.choices[0].message.content).toBe('NO_REPLY');
    expect(res.model).toBe('no-reply');
  });

  it('streams a chat completion as SSE, with usage when asked', async () => {
    const client = clientFor(t.gw, snowflake());
    const stream = await client.chat.completions.create({
      model: 'gpt-primary',
      messages: [{ role: 'user', content: 'stream please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
      expect(chunk.model).toBe('gpt-primary');
    }
    expect(text).toBe('upstream says hi to gpt-4o-mini');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
    expect(t.primary.seen[t.primary.seen.length - 1].body.stream_options).toEqual({
      include_usage: true,
    });
  });

  it('omits the usage chunk when the client did not ask for it', async () => {
    const stream = await clientFor(t.gw, snowflake()).chat.completions.create({
      model: 'gpt-primary',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.every((c) => c.choices.length === 1 && !c.usage)).toBe(true);
  });

  it('embeds through the embed purpose, float and base64', async () => {
    const client = clientFor(t.gw, snowflake());
    const floats = await client.embeddings.create({
      model: 'purpose:embed',
      input: ['a', 'b'],
      encoding_format: 'float',
    });
    expect(floats.data).toHaveLength(2);
    expect(floats.data[1].embedding[0]).toBeCloseTo(0.02, 6);
    // the SDK's default asks for base64 and decodes it
    const decoded = await client.embeddings.create({
      model: 'embedder',
      input: 'a',
      dimensions: 4,
    });
    expect(decoded.data[0].embedding).toHaveLength(4);
    expect(decoded.data[0].embedding[0]).toBeCloseTo(0.01, 6);
    expect(decoded.model).toBe('embedder');
  });

  it('lists models and purposes', async () => {
    const ids: string[] = [];
    for await (const m of (await t.gw.client.models.list()).iterPages())
      ids.push(...m.data.map((d) => d.id));
    expect(ids).toEqual(
      expect.arrayContaining([
        'gpt-primary',
        'claude',
        'no-reply',
        'purpose:agent',
        'purpose:embed',
      ]),
    );
    expect(await t.gw.client.models.retrieve('purpose:agent')).toMatchObject({
      id: 'purpose:agent',
      object: 'model',
    });
    expect(await t.gw.client.models.retrieve('claude')).toMatchObject({
      id: 'claude',
      owned_by: 'anth',
    });
    await expect(t.gw.client.models.retrieve('gpt-9')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
  });

  it('refuses requests without the token with 401', async () => {
    const bad = new OpenAI({ apiKey: 'wrong-token', baseURL: t.gw.baseURL, maxRetries: 0 });
    await expect(bad.models.list()).rejects.toMatchObject({ status: 401 });
    const res = await fetch(`${t.gw.baseURL}/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
  });

  it.each([
    [{ messages: [{ role: 'user', content: 'x' }] }, 'model'],
    [{ model: 'gpt-primary', messages: [] }, 'messages'],
    [{ model: 'gpt-primary', messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role'],
    [
      { model: 'gpt-primary', messages: [{ role: 'tool', content: 'x' }] },
      'messages[0].tool_call_id',
    ],
    [
      { model: 'gpt-primary', messages: [{ role: 'user', content: 'x' }], temperature: 7 },
      'temperature',
    ],
    [
      { model: 'gpt-primary', messages: [{ role: 'user', content: 'x' }], max_tokens: -1 },
      'max_tokens',
    ],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const res = await fetch(`${t.gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    const json = (await res.json()) as any;
    expect(json.error.param).toBe(field);
    expect(json.error.message).toContain(field);
  });

  it('answers 400 for unparseable JSON, a bad embeddings input and an unknown purpose; 404 for an unknown model', async () => {
    const post = (path: string, body: string) =>
      fetch(`${t.gw.baseURL}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body,
      });
    const broken = await post('/chat/completions', '{"model":');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as any).error.param).toBe('(body)');
    const emb = await post('/embeddings', JSON.stringify({ model: 'embedder', input: [{}] }));
    expect(emb.status).toBe(400);
    expect(((await emb.json()) as any).error.param).toMatch(/^input/);
    const purpose = await post(
      '/chat/completions',
      JSON.stringify({ model: 'purpose:nope', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(purpose.status).toBe(400);
    expect(((await purpose.json()) as any).error).toMatchObject({
      param: 'model',
      code: 'unknown_purpose',
    });
    const unknown = await post(
      '/chat/completions',
      JSON.stringify({ model: 'gpt-9', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(unknown.status).toBe(404);
    const guild = await fetch(`${t.gw.baseURL}/models`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(guild.status).toBe(200);
  });

  it('answers a compressed body (the Express path) as the chat route answers it plain', async () => {
    // The route takes plain JSON ahead of Express; a gzip body goes on to OpenAiController.
    const post = (body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) =>
      fetch(`${t.gw.baseURL}/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'x-dirigent-guild': snowflake(),
          ...headers,
        },
        body,
      });
    const same = async (request: object) => {
      const json = JSON.stringify(request);
      const plain = await post(json);
      const gzipped = await post(new Uint8Array(gzipSync(json)), { 'content-encoding': 'gzip' });
      expect(gzipped.status).toBe(plain.status);
      expect(gzipped.headers.get('x-dirigent-model')).toBe(plain.headers.get('x-dirigent-model'));
      const [a, b] = (await Promise.all([plain.json(), gzipped.json()])) as any[];
      const stable = ({ id: _id, created: _created, ...rest }: any) => rest;
      expect(stable(b)).toEqual(stable(a));
      return plain.status;
    };
    await expect(
      same({ model: 'purpose:agent', messages: [{ role: 'user', content: 'same either way' }] }),
    ).resolves.toBe(200);
    await expect(same({ model: 'purpose:agent', messages: [{ role: 'nobody' }] })).resolves.toBe(
      400,
    );
  });

  describe('Anthropic translation', () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18C' },
      { role: 'user', content: 'And Lyon?' },
    ];

    it('translates the request and a tool-calling answer', async () => {
      t.anthropic.behave = () => ({
        kind: 'ok',
        text: 'Checking.',
        toolCall: { name: 'get_weather', arguments: { city: 'Lyon' } },
        usage: { input: 30, output: 9 },
      });
      const res = await clientFor(t.gw, snowflake()).chat.completions.create({
        model: 'purpose:synth-high',
        messages,
        tools,
        tool_choice: 'required',
        max_tokens: 300,
        stop: 'END',
      });
      const sent = t.anthropic.seen[t.anthropic.seen.length - 1];
      expect(sent.path).toBe('/v1/messages');
      expect(sent.headers['x-api-key']).toBe('sk-ant-test');
      expect(sent.body).toMatchObject({
        model: 'claude-fake-1',
        max_tokens: 300,
        system: 'Be brief.',
        stop_sequences: ['END'],
        tool_choice: { type: 'any' },
        tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object' } }],
      });
      expect(sent.body.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '18C' },
            { type: 'text', text: 'And Lyon?' },
          ],
        },
      ]);
      const choice = res.choices[0];
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBe('Checking.');
      expect(choice.message.tool_calls).toEqual([
        {
          id: 'toolu_fake1',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Lyon"}' },
        },
      ]);
      expect(res.usage).toMatchObject({
        prompt_tokens: 30,
        completion_tokens: 9,
        total_tokens: 39,
      });
    });

    it('translates a streamed answer with a tool call', async () => {
      t.anthropic.behave = () => ({
        kind: 'ok',
        text: 'Let me check.',
        toolCall: { name: 'get_weather', arguments: { city: 'Lyon' } },
        usage: { input: 40, output: 11 },
      });
      const stream = await clientFor(t.gw, snowflake()).chat.completions.create({
        model: 'claude',
        messages,
        tools,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let args = '';
      let name = '';
      let id = '';
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        const c = chunk.choices[0];
        if (chunk.usage) usage = chunk.usage;
        if (!c) continue;
        text += c.delta.content ?? '';
        for (const t of c.delta.tool_calls ?? []) {
          expect(t.index).toBe(0);
          args += t.function?.arguments ?? '';
          name = t.function?.name ?? name;
          id = t.id ?? id;
        }
        finish = c.finish_reason ?? finish;
      }
      expect(t.anthropic.seen[t.anthropic.seen.length - 1].body.stream).toBe(true);
      expect(text).toBe('Let me check.');
      expect({ id, name, args: JSON.parse(args) }).toEqual({
        id: 'toolu_fake1',
        name: 'get_weather',
        args: { city: 'Lyon' },
      });
      expect(finish).toBe('tool_calls');
      expect(usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 11 });
    });
  });

  describe('NATS request/reply', () => {
    let messaging: Messaging;
    beforeAll(() => {
      messaging = t.gw.app.get(Messaging);
    });
    /** A request over NATS: the reply's data, or its error thrown. */
    const call = async (subj: string, data: unknown): Promise<any> => {
      const reply = await messaging.request<any>(subj, data);
      if (!reply.ok) throw Object.assign(new Error(reply.error.message), reply.error);
      return reply.data;
    };

    it('answers dirigent.llm.chat on the wire', async () => {
      const reply = await messaging.request<any>(Subjects.llm.chat, {
        guildId: snowflake(),
        purpose: 'agent',
        request: { model: 'ignored', messages: [{ role: 'user', content: 'via nats' }] },
      });
      expect(reply).toMatchObject({
        ok: true,
        data: { model: 'gpt-primary', purpose: 'agent', completion: { object: 'chat.completion' } },
      });
    });

    it('chats and embeds by purpose, and refuses bad input with BAD_REQUEST naming the field', async () => {
      const guild = snowflake();
      const chat = await call(Subjects.llm.chat, {
        guildId: guild,
        purpose: 'agent',
        request: { model: 'ignored', messages: [{ role: 'user', content: 'via nats' }] },
      });
      expect(chat).toMatchObject({ model: 'gpt-primary', purpose: 'agent' });
      const bare = await call(Subjects.llm.chat, {
        guildId: guild,
        purpose: 'steward',
        request: { messages: [{ role: 'user', content: 'no model field' }] },
      });
      expect(bare.completion.choices[0].message.content).toBe('NO_REPLY');
      const emb = await call(Subjects.llm.embed, {
        guildId: guild,
        request: { model: 'purpose:embed', input: 'x', encoding_format: 'float' },
      });
      expect(emb.response.data[0].embedding).toHaveLength(8);
      const bad = await call(Subjects.llm.chat, {
        guildId: guild,
        request: { model: 'echo', messages: [{ role: 'user' }] },
      }).catch((e: Error) => e);
      expect(bad).toMatchObject({ code: 'BAD_REQUEST' });
      expect((bad as Error).message).toContain('request.messages[0].content');
      const unknown = await call(Subjects.llm.chat, {
        request: { model: 'gpt-9', messages: [{ role: 'user', content: 'x' }] },
      }).catch((e: Error) => e);
      expect(unknown).toMatchObject({ code: 'NOT_FOUND' });
    });

    it('streams chunks to the caller subject, and an early failure too', async () => {
      const nc = t.gw.app.get(NatsClient).nc;
      const listen = (inbox: string) => {
        const sub = nc.subscribe(inbox);
        const got: any[] = [];
        const done = (async () => {
          for await (const m of sub) {
            const v = m.json<any>();
            got.push(v);
            if (v.done || v.error) break;
          }
          return got;
        })();
        return done;
      };
      const inbox = `_INBOX.llmtest.${snowflake()}`;
      const collected = listen(inbox);
      const reply = await call(Subjects.llm.chat, {
        guildId: snowflake(),
        request: {
          model: 'echo',
          stream: true,
          messages: [{ role: 'user', content: 'one two three' }],
        },
        streamSubject: inbox,
      });
      const got = await collected;
      expect(reply).toMatchObject({ model: 'echo' });
      const text = got
        .filter((g) => g.chunk)
        .map((g) => g.chunk.choices[0]?.delta.content ?? '')
        .join('');
      // the offline model streams the same reply it gives unstreamed
      expect(text).toBe(
        offlineReply(
          { model: 'echo', messages: [{ role: 'user', content: 'one two three' }] },
          'echo',
        ),
      );
      expect(got[got.length - 1]).toEqual({ done: true });

      const failing = `_INBOX.llmtest.${snowflake()}`;
      const failed = listen(failing);
      await expect(
        call(Subjects.llm.chat, {
          request: { model: 'gpt-9', stream: true, messages: [{ role: 'user', content: 'x' }] },
          streamSubject: failing,
        }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await failed).toEqual([
        { error: expect.objectContaining({ code: 'model_not_found' }) },
      ]);
    });

    it('publishes the usage of each call on dirigent.llm.usage', async () => {
      const guild = snowflake();
      await clientFor(t.gw, guild).chat.completions.create({
        model: 'echo',
        messages: [{ role: 'user', content: 'usage' }],
      });
      const event = await waitFor(async () => {
        const jsm = t.gw.app.get(NatsClient).jsm;
        const info = await jsm.streams.info('DIRIGENT_LLM_USAGE');
        for (let seq = info.state.last_seq; seq > Math.max(0, info.state.last_seq - 500); seq--) {
          const m = await jsm.streams.getMessage('DIRIGENT_LLM_USAGE', { seq }).catch(() => null);
          const env = m?.json<any>();
          if (env?.data.records?.some((r: any) => r.guildId === guild)) return env;
        }
        return undefined;
      });
      const metrics = await (await fetch(`http://127.0.0.1:${t.gw.port}/metrics`)).text();
      expect(metrics).toMatch(
        /dirigent_llm_requests_total\{kind="chat",model="echo",outcome="ok"\} \d+/,
      );
      expect(event).toMatchObject({ type: 'llm.usage.batch', source: 'llm-gateway' });
      expect(event.data.records.filter((r: any) => r.guildId === guild)).toEqual([
        expect.objectContaining({ model: 'echo', outcome: 'ok', kind: 'chat' }),
      ]);
    });
  });

  it('boots with no configuration and no token: the offline models, loopback callers only', async () => {
    const bare = await startGateway(undefined);
    try {
      const client = new OpenAI({ apiKey: 'anything', baseURL: bare.baseURL, maxRetries: 0 });
      const res = await client.chat.completions.create({
        model: 'purpose:router-classify',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(res.choices[0].message.content).toBe('NO_REPLY');
      const said = await client.chat.completions.create({
        model: 'purpose:agent',
        messages: [{ role: 'user', content: 'hi there' }],
      });
      expect(said.choices[0].message.content).toMatch(/^(Hey|Hi|Hello)\b/);
      const emb = await client.embeddings.create({
        model: 'purpose:embed',
        input: 'x',
        encoding_format: 'float',
      });
      expect(emb.data[0].embedding).toHaveLength(256);
    } finally {
      await bare.close();
    }
  });
});
