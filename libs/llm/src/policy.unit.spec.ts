import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { loadLlmConfig, parseLlmConfig } from './config';
import { backoffMs, classifyFailure, Cooldowns, retryAfterMs, UnsupportedError } from './failures';
import { costMicros, estimatePromptTokens, estimateTextTokens, outputCap } from './pricing';
import { parseChatRequest, parseEmbeddingsRequest } from './request';

const model = {
  id: 'm',
  provider: 'p',
  upstream: 'u',
  inputUsdPerMTok: 3,
  outputUsdPerMTok: 15,
  type: 'chat' as const,
};

describe('pricing', () => {
  it('prices a token at exactly price micro-USD, rounded up', () => {
    expect(costMicros(model, 1000, 100)).toBe(3000 + 1500);
    expect(costMicros({ ...model, inputUsdPerMTok: 0.15 }, 3, 0)).toBe(1);
  });

  it('estimates at least one token per four UTF-8 bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(estimateTextTokens(s)).toBeGreaterThanOrEqual(Math.ceil(Buffer.byteLength(s) / 4));
      }),
    );
  });

  it('counts every message, tool call and tool definition in the prompt estimate', () => {
    const base = { messages: [{ role: 'user' as const, content: 'hello' }] };
    const withTools = {
      ...base,
      tools: [{ type: 'function' as const, function: { name: 'f', description: 'x'.repeat(300) } }],
    };
    expect(estimatePromptTokens(withTools as any)).toBeGreaterThan(
      estimatePromptTokens(base) + 100,
    );
  });

  it('caps output by the caller, then the model, then the default', () => {
    const r = (b: object) => ({ model: 'm', messages: [], ...b }) as any;
    expect(outputCap(r({ max_tokens: 10 }), model, 4096)).toBe(10);
    expect(outputCap(r({ max_completion_tokens: 20, max_tokens: 10 }), model, 4096)).toBe(20);
    expect(outputCap(r({}), { ...model, maxOutputTokens: 99 }, 4096)).toBe(99);
    expect(outputCap(r({}), model, 4096)).toBe(4096);
  });
});

describe('request validation', () => {
  it.each([
    [{}, 'model'],
    [{ model: 'm' }, 'messages'],
    [{ model: 'm', messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    [{ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: 'yes' }, 'stream'],
    [{ model: 'm', messages: [{ role: 'user', content: 'x' }], n: 2 }, 'n'],
    [
      {
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'function', function: { name: 'bad name' } }],
      },
      'tools[0].function.name',
    ],
    [[], '(body)'],
  ])('names the field of %j', (body, field) => {
    const r = parseChatRequest(body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem.field).toBe(field);
  });

  it('passes unknown OpenAI fields through', () => {
    const r = parseChatRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      seed: 7,
      response_format: { type: 'json_object' },
    });
    expect(r.ok && (r.value as any).seed).toBe(7);
  });

  it('validates embeddings input', () => {
    expect(parseEmbeddingsRequest({ model: 'e', input: ['a', 'b'] }).ok).toBe(true);
    expect(parseEmbeddingsRequest({ model: 'e', input: [[1, 2]] }).ok).toBe(true);
    const bad = parseEmbeddingsRequest({ model: 'e', input: 3 });
    expect(!bad.ok && bad.problem.field).toBe('input');
  });
});

describe('configuration', () => {
  it('names every bad field in one line', () => {
    expect(() =>
      parseLlmConfig({
        providers: [{ id: 'a', kind: 'nope' }],
        models: [
          { id: 'm', provider: 'zzz', upstream: 'u', inputUsdPerMTok: -1, outputUsdPerMTok: 0 },
        ],
        purposes: { agent: { model: 'ghost' } },
      }),
    ).toThrow(/providers\.0\.kind.*models\.0\.inputUsdPerMTok/);
    expect(() =>
      parseLlmConfig({
        providers: [{ id: 'a', kind: 'openai' }],
        models: [
          { id: 'm', provider: 'zzz', upstream: 'u', inputUsdPerMTok: 1, outputUsdPerMTok: 0 },
        ],
        purposes: { agent: { model: 'ghost' } },
      }),
    ).toThrow(
      /models\.0\.provider names no configured provider.*purposes\.agent\.model names no configured model/,
    );
  });

  it('reads YAML and JSON files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llm-cfg-'));
    const yaml = join(dir, 'llm.yaml');
    writeFileSync(
      yaml,
      [
        'providers:',
        '  - { id: oa, kind: openai, baseUrl: "http://127.0.0.1:1/v1", apiKeyEnv: OPENAI_API_KEY }',
        'models:',
        '  - { id: gpt, provider: oa, upstream: gpt-4o, inputUsdPerMTok: 2.5, outputUsdPerMTok: 10 }',
        'purposes:',
        '  agent: { model: gpt }',
        'budgets: { defaultGuildUsdPerDay: 2, guilds: { "123": 10 } }',
      ].join('\n'),
    );
    const cfg = loadLlmConfig(yaml);
    expect(cfg.budgets.guilds['123']).toBe(10);
    expect(cfg.reliability.retries).toBe(2);
    const json = join(dir, 'llm.json');
    writeFileSync(json, '{"providers": [');
    expect(() => loadLlmConfig(json)).toThrow(/not valid JSON/);
    expect(() => loadLlmConfig(join(dir, 'missing.yaml'))).toThrow(/cannot read .*ENOENT/);
  });
});

describe('failure taxonomy', () => {
  const err = (status: number, message = 'x', headers: Record<string, string> = {}) =>
    Object.assign(new Error(message), { status, headers: new Headers(headers) });
  const none = { timedOut: false, aborted: false };

  it('retries 429, 408 and 5xx, honouring Retry-After', () => {
    expect(classifyFailure(err(429, 'x', { 'retry-after': '2' }), none)).toMatchObject({
      kind: 'retryable',
      reason: 'rate_limited',
      retryAfterMs: 2000,
    });
    expect(classifyFailure(err(503), none)).toMatchObject({
      kind: 'retryable',
      reason: 'server_error',
    });
    expect(classifyFailure(err(408), none)).toMatchObject({ kind: 'retryable', reason: 'timeout' });
    expect(classifyFailure(new Error('ECONNREFUSED'), none)).toMatchObject({
      kind: 'retryable',
      reason: 'connection',
    });
  });

  it('tells overflow, caller errors, refusals, timeouts and aborts apart', () => {
    expect(
      classifyFailure(err(400, "This model's maximum context length is 8192 tokens"), none).kind,
    ).toBe('overflow');
    expect(
      classifyFailure(err(400, 'prompt is too long: 300000 tokens > 200000 maximum'), none).kind,
    ).toBe('overflow');
    expect(classifyFailure(err(400, 'bad temperature'), none)).toMatchObject({
      kind: 'caller',
      status: 400,
    });
    expect(classifyFailure(err(401), none).kind).toBe('skip');
    expect(classifyFailure(new UnsupportedError('no'), none).kind).toBe('skip');
    expect(classifyFailure(new Error('x'), { timedOut: true, aborted: false })).toMatchObject({
      kind: 'retryable',
      reason: 'timeout',
    });
    expect(classifyFailure(new Error('x'), { timedOut: true, aborted: true }).kind).toBe('aborted');
  });

  it('parses Retry-After as seconds, milliseconds or a date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150' }))).toBe(150);
    expect(retryAfterMs(new Headers({ 'retry-after': '1.5' }))).toBe(1500);
    expect(
      retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000),
    ).toBe(6_000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });

  it('cools a deployment down after consecutive failures and lets it back after the cooldown', () => {
    const c = new Cooldowns(2, 1000);
    expect(c.failure('a', 0)).toBe(false);
    expect(c.available('a', 1)).toBe(true);
    expect(c.failure('a', 10)).toBe(true);
    expect(c.available('a', 500)).toBe(false);
    expect(c.available('a', 1010)).toBe(true);
    // half-open: one more failure re-opens at once
    expect(c.failure('a', 1020)).toBe(true);
    c.success('a');
    expect(c.available('a', 1030)).toBe(true);
  });

  it('backs off exponentially with jitter, capped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, r) => {
          const ms = backoffMs(attempt, 100, 2000, r);
          const ceiling = Math.min(2000, 100 * 2 ** attempt);
          expect(ms).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
          expect(ms).toBeLessThanOrEqual(ceiling);
        },
      ),
    );
  });
});
