import OpenAI from 'openai';
import { Subjects } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { snowflake } from '@dirigent/testing';
import { type FakeToolCall } from './fake-upstreams';
import { clientFor, gatewaySuite } from './harness';

/**
 * Tools and tool calls through the gateway, as the synthesizer and the orchestrator use
 * them: the real openai client, `stream: true` with tools, against scripted OpenAI-speaking
 * and Anthropic-speaking upstreams that stream tool-call deltas (two parallel calls, their
 * arguments cut in pieces), then the tool results sent back for the next round.
 */
describe('llm-gateway: tools and tool calls pass through, streamed or not', () => {
  const t = gatewaySuite();

  const tools: OpenAI.ChatCompletionFunctionTool[] = [
    {
      type: 'function',
      function: {
        name: 'dice',
        description: 'Roll dice',
        parameters: {
          type: 'object',
          properties: { notation: { type: 'string' } },
          required: ['notation'],
          additionalProperties: false,
        },
      },
    },
    {
      type: 'function',
      function: {
        name: 'pin_moment',
        description: 'Pin a message',
        parameters: {
          type: 'object',
          properties: { channelId: { type: 'string' }, messageId: { type: 'string' } },
          required: ['channelId', 'messageId'],
        },
      },
    },
  ];
  const calls: FakeToolCall[] = [
    { name: 'dice', arguments: { notation: '2d6+1' } },
    { name: 'pin_moment', arguments: { channelId: '111', messageId: '222' } },
  ];
  const ask: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are Dit.' },
    { role: 'user', content: 'roll 2d6+1 and pin that' },
  ];

  /** Reassembles a streamed answer as the openai SDK's users do: deltas merged by index. */
  async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
    const byIndex = new Map<number, { id: string; name: string; args: string }>();
    let text = '';
    let finish: string | null = null;
    let chunks = 0;
    for await (const chunk of stream) {
      const c = chunk.choices[0];
      if (!c) continue;
      chunks += 1;
      text += c.delta.content ?? '';
      for (const t of c.delta.tool_calls ?? []) {
        const cur = byIndex.get(t.index) ?? { id: '', name: '', args: '' };
        cur.id = t.id ?? cur.id;
        cur.name = t.function?.name ?? cur.name;
        cur.args += t.function?.arguments ?? '';
        byIndex.set(t.index, cur);
      }
      finish = c.finish_reason ?? finish;
    }
    const toolCalls = [...byIndex.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, v]) => ({ id: v.id, name: v.name, args: JSON.parse(v.args) as unknown }));
    return { text, finish, toolCalls, chunks };
  }

  /** The second round: the model's calls and their results, as the tool loop sends them. */
  const followUp = (ids: string[]): OpenAI.ChatCompletionMessageParam[] => [
    ...ask,
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c, i) => ({
        id: ids[i],
        type: 'function' as const,
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    },
    { role: 'tool', tool_call_id: ids[0], content: '{"status":"done","result":{"total":9}}' },
    { role: 'tool', tool_call_id: ids[1], content: '{"error":"FORBIDDEN cannot pin"}' },
  ];

  it('OpenAI-compatible upstream: tools go up as given, streamed tool-call deltas come back', async () => {
    t.primary.behave = (seen) =>
      seen.body.messages.length > 2
        ? { kind: 'ok', text: 'You rolled 9.' }
        : { kind: 'ok', toolCalls: calls };
    const client = clientFor(t.gw, snowflake());
    const stream = await client.chat.completions.create({
      model: 'purpose:agent',
      messages: ask,
      tools,
      tool_choice: 'auto',
      parallel_tool_calls: true,
      stream: true,
    });
    const got = await collect(stream);
    const up = t.primary.seen[t.primary.seen.length - 1];
    expect(up.body).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      tools,
      tool_choice: 'auto',
      parallel_tool_calls: true,
    });
    expect(got.finish).toBe('tool_calls');
    expect(got.text).toBe('');
    expect(got.toolCalls).toEqual([
      { id: 'call_fake1', name: 'dice', args: { notation: '2d6+1' } },
      { id: 'call_fake2', name: 'pin_moment', args: { channelId: '111', messageId: '222' } },
    ]);
    // one chunk opens each call, three carry its arguments, one finishes
    expect(got.chunks).toBe(2 * 4 + 1);

    const second = await client.chat.completions.create({
      model: 'purpose:agent',
      messages: followUp(['call_fake1', 'call_fake2']),
      tools,
      stream: true,
    });
    const answer = await collect(second);
    expect(answer).toMatchObject({ text: 'You rolled 9.', finish: 'stop', toolCalls: [] });
    const back = t.primary.seen[t.primary.seen.length - 1].body.messages;
    expect(back.slice(2)).toEqual(followUp(['call_fake1', 'call_fake2']).slice(2));
  });

  it('OpenAI-compatible upstream, not streamed: the tool calls come back whole', async () => {
    t.primary.behave = () => ({ kind: 'ok', toolCalls: calls });
    const res = await clientFor(t.gw, snowflake()).chat.completions.create({
      model: 'purpose:agent',
      messages: ask,
      tools,
      tool_choice: { type: 'function', function: { name: 'dice' } },
    });
    expect(t.primary.seen[t.primary.seen.length - 1].body.tool_choice).toEqual({
      type: 'function',
      function: { name: 'dice' },
    });
    expect(res.choices[0].finish_reason).toBe('tool_calls');
    expect(res.choices[0].message.tool_calls).toEqual([
      {
        id: 'call_fake1',
        type: 'function',
        function: { name: 'dice', arguments: '{"notation":"2d6+1"}' },
      },
      {
        id: 'call_fake2',
        type: 'function',
        function: { name: 'pin_moment', arguments: '{"channelId":"111","messageId":"222"}' },
      },
    ]);
  });

  it('Anthropic upstream: tools become input_schema, two streamed tool_use blocks become two calls', async () => {
    t.anthropic.behave = () => ({ kind: 'ok', text: 'On it. ', toolCalls: calls });
    const stream = await clientFor(t.gw, snowflake()).chat.completions.create({
      model: 'purpose:synth-high',
      messages: ask,
      tools,
      tool_choice: 'auto',
      stream: true,
    });
    const got = await collect(stream);
    const up = t.anthropic.seen[t.anthropic.seen.length - 1].body;
    expect(up.stream).toBe(true);
    expect(up.tools).toEqual(
      tools.map((t) => ({
        name: t.function.name,
        description: t.function.description,
        input_schema: t.function.parameters,
      })),
    );
    expect(got.finish).toBe('tool_calls');
    expect(got.text).toBe('On it. ');
    expect(got.toolCalls).toEqual([
      { id: 'toolu_fake1', name: 'dice', args: { notation: '2d6+1' } },
      { id: 'toolu_fake2', name: 'pin_moment', args: { channelId: '111', messageId: '222' } },
    ]);

    t.anthropic.behave = () => ({ kind: 'ok', text: 'You rolled 9.' });
    const second = await clientFor(t.gw, snowflake()).chat.completions.create({
      model: 'purpose:synth-high',
      messages: followUp(['toolu_fake1', 'toolu_fake2']),
      tools,
      tool_choice: 'none',
      stream: true,
    });
    expect(await collect(second)).toMatchObject({ text: 'You rolled 9.', finish: 'stop' });
    const sent = t.anthropic.seen[t.anthropic.seen.length - 1].body;
    expect(sent.tool_choice).toEqual({ type: 'none' });
    expect(sent.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_fake1', name: 'dice', input: { notation: '2d6+1' } },
          {
            type: 'tool_use',
            id: 'toolu_fake2',
            name: 'pin_moment',
            input: { channelId: '111', messageId: '222' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_fake1',
            content: '{"status":"done","result":{"total":9}}',
          },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_fake2',
            content: '{"error":"FORBIDDEN cannot pin"}',
          },
        ],
      },
    ]);
  });

  it('over NATS (dirigent.llm.chat, what the router calls): tools up, tool calls back, both upstreams', async () => {
    const messaging = t.gw.app.get(Messaging);
    t.primary.behave = () => ({ kind: 'ok', toolCalls: calls });
    t.anthropic.behave = () => ({ kind: 'ok', text: '', toolCalls: calls });
    for (const [purpose, prefix] of [
      ['agent', 'call_fake'],
      ['synth-high', 'toolu_fake'],
    ]) {
      const reply = await messaging.request<any>(Subjects.llm.chat, {
        guildId: snowflake(),
        purpose,
        request: { messages: ask, tools, tool_choice: 'auto' },
      });
      if (!reply.ok) throw new Error(reply.error.message);
      const message = reply.data.completion.choices[0].message;
      expect(
        message.tool_calls.map((c: any) => [
          c.id,
          c.function.name,
          JSON.parse(c.function.arguments),
        ]),
      ).toEqual([
        [`${prefix}1`, 'dice', { notation: '2d6+1' }],
        [`${prefix}2`, 'pin_moment', { channelId: '111', messageId: '222' }],
      ]);
    }
  });
});
