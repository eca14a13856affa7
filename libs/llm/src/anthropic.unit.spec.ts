import type Anthropic from '@anthropic-ai/sdk';
import {
  AnthropicStreamTranslator,
  finishReason,
  fromAnthropicMessage,
  toAnthropicRequest,
} from './anthropic';
import { parseChatRequest, type ChatRequest } from './request';

const req = (body: Record<string, unknown>): ChatRequest => {
  const r = parseChatRequest({ model: 'm', ...body });
  if (!r.ok) throw new Error(r.problem.message);
  return r.value;
};

describe('OpenAI → Anthropic request', () => {
  it('lifts system and developer messages, keeps turns alternating and maps tools', () => {
    const params = toAnthropicRequest(
      req({
        messages: [
          { role: 'system', content: 'A' },
          { role: 'developer', content: [{ type: 'text', text: 'B' }] },
          { role: 'user', content: 'one' },
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
          },
          {
            role: 'assistant',
            content: 'calling',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
              { id: 'c2', type: 'function', function: { name: 'g', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'r1' },
          { role: 'tool', tool_call_id: 'c2', content: 'r2' },
        ],
        tools: [
          { type: 'function', function: { name: 'f', parameters: { type: 'object' } } },
          { type: 'function', function: { name: 'g' } },
        ],
        tool_choice: { type: 'function', function: { name: 'f' } },
        parallel_tool_calls: false,
        temperature: 1.5,
        top_p: 0.9,
        stop: ['x', 'y'],
        user: 'u1',
      }),
      'claude-x',
      256,
    );
    expect(params).toEqual({
      model: 'claude-x',
      max_tokens: 256,
      system: 'A\n\nB',
      temperature: 1,
      top_p: 0.9,
      stop_sequences: ['x', 'y'],
      metadata: { user_id: 'u1' },
      tools: [
        { name: 'f', input_schema: { type: 'object' } },
        { name: 'g', input_schema: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'tool', name: 'f', disable_parallel_tool_use: true },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'one' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'calling' },
            { type: 'tool_use', id: 'c1', name: 'f', input: { x: 1 } },
            { type: 'tool_use', id: 'c2', name: 'g', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'c1', content: 'r1' },
            { type: 'tool_result', tool_use_id: 'c2', content: 'r2' },
          ],
        },
      ],
    });
  });

  it('maps tool_choice required/none/auto and image URLs', () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    const messages = [
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
    ];
    expect(
      toAnthropicRequest(req({ messages, tools, tool_choice: 'required' }), 'c', 1).tool_choice,
    ).toEqual({ type: 'any' });
    // The tools stay defined (a conversation with tool_use blocks needs them); none are called.
    const none = toAnthropicRequest(req({ messages, tools, tool_choice: 'none' }), 'c', 1);
    expect(none.tool_choice).toEqual({ type: 'none' });
    expect(none.tools).toHaveLength(1);
    expect(toAnthropicRequest(req({ messages, tools }), 'c', 1).tool_choice).toBeUndefined();
    expect(toAnthropicRequest(req({ messages }), 'c', 1).messages[0].content).toEqual([
      { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
    ]);
  });
});

describe('Anthropic → OpenAI response', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    [null, 'stop'],
  ] as const)('stop reason %s → %s', (stop, finish) => {
    expect(finishReason(stop)).toBe(finish);
  });

  it('joins text, turns tool_use into tool_calls and counts cache tokens as prompt tokens', () => {
    const msg = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude',
      content: [
        { type: 'text', text: 'a', citations: null },
        { type: 'text', text: 'b', citations: null },
        { type: 'tool_use', id: 'tu1', name: 'f', input: { q: 'z' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 10,
        output_tokens: 4,
        cache_read_input_tokens: 5,
        cache_creation_input_tokens: 1,
      },
    } as unknown as Anthropic.Message;
    const c = fromAnthropicMessage(msg, 'gw-model', 123);
    expect(c).toMatchObject({
      id: 'chatcmpl-msg_1',
      model: 'gw-model',
      created: 123,
      choices: [
        {
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'ab',
            tool_calls: [
              { id: 'tu1', type: 'function', function: { name: 'f', arguments: '{"q":"z"}' } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 16, completion_tokens: 4, total_tokens: 20 },
    });
  });

  it('translates a stream of text and two tool calls into OpenAI chunks', () => {
    const t = new AnthropicStreamTranslator('gw', 1);
    const events = [
      {
        type: 'message_start',
        message: { id: 'm1', usage: { input_tokens: 7, output_tokens: 1 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 't1', name: 'f', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"a":' },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '1}' },
      },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 't2', name: 'g', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 2,
        delta: { type: 'input_json_delta', partial_json: '{}' },
      },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ] as unknown as Anthropic.RawMessageStreamEvent[];
    const chunks = events.flatMap((e) => t.push(e));
    chunks.push(t.usageChunk());
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.every((c) => c.id === 'chatcmpl-m1')).toBe(true);
    const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta));
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('Hi');
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    expect(calls[0]).toEqual({
      index: 0,
      id: 't1',
      type: 'function',
      function: { name: 'f', arguments: '' },
    });
    expect(
      calls
        .filter((c) => c.index === 0)
        .map((c) => c.function?.arguments)
        .join(''),
    ).toBe('{"a":1}');
    expect(
      calls
        .filter((c) => c.index === 1)
        .map((c) => c.function?.arguments)
        .join(''),
    ).toBe('{}');
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('tool_calls');
    expect(chunks[chunks.length - 1]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 7, completion_tokens: 9, total_tokens: 16 },
    });
  });
});
