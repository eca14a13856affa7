import fc from 'fast-check';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { parseLlmConfig, type LlmConfig } from './config';
import { GatewayError } from './errors';
import { LlmGateway } from './gateway';
import type { UsageRecord } from './ports';
import { MemoryBudgetStore } from './memory-budget';
import { OfflineProvider, type CallContext, type Provider } from './providers';
import type { ChatRequest } from './request';

type Step = 'ok' | { status: number; headers?: Record<string, string>; message?: string } | 'hang';

/** A provider that plays a script of outcomes, one per call, then answers ok. */
class Scripted implements Provider {
  readonly kind = 'openai' as const;
  calls: { model: string; at: number }[] = [];
  usage = { prompt: 100, completion: 10 };
  constructor(
    readonly id: string,
    public script: Step[] = [],
  ) {}

  private next(ctx: { model: { id: string }; signal: AbortSignal }): Promise<void> {
    this.calls.push({ model: ctx.model.id, at: Date.now() });
    const step = this.script.shift() ?? 'ok';
    if (step === 'ok') return Promise.resolve();
    if (step === 'hang')
      return new Promise((_, reject) =>
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    return Promise.reject(
      Object.assign(new Error(step.message ?? `status ${step.status}`), {
        status: step.status,
        headers: new Headers(step.headers ?? {}),
      }),
    );
  }

  async chat(_req: ChatRequest, ctx: CallContext): Promise<ChatCompletion> {
    await this.next(ctx);
    return {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: ctx.model.id,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: `from ${ctx.model.id}`, refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: this.usage.prompt,
        completion_tokens: Math.min(this.usage.completion, ctx.maxTokens),
        total_tokens: this.usage.prompt + Math.min(this.usage.completion, ctx.maxTokens),
      },
    };
  }

  async chatStream(
    _req: ChatRequest,
    ctx: CallContext,
  ): Promise<AsyncIterator<ChatCompletionChunk>> {
    await this.next(ctx);
    const mk = (content: string): ChatCompletionChunk => ({
      id: 'x',
      object: 'chat.completion.chunk',
      created: 0,
      model: ctx.model.id,
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    });
    const fail = this.script.shift();
    return (async function* () {
      yield mk('a');
      if (fail && fail !== 'ok') throw new Error('connection reset');
      yield mk('b');
      yield {
        ...mk(''),
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      };
    })();
  }

  async embed(): Promise<never> {
    throw new Error('not used');
  }
}

const config = (reliability: Record<string, number> = {}, budget = 100): LlmConfig =>
  parseLlmConfig({
    providers: [
      { id: 'p1', kind: 'openai' },
      { id: 'p2', kind: 'openai' },
      { id: 'off', kind: 'offline' },
    ],
    models: [
      { id: 'primary', provider: 'p1', upstream: 'u1', inputUsdPerMTok: 1, outputUsdPerMTok: 1 },
      { id: 'backup', provider: 'p2', upstream: 'u2', inputUsdPerMTok: 1, outputUsdPerMTok: 1 },
      { id: 'free', provider: 'off', upstream: 'echo', inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
    ],
    purposes: { agent: { model: 'primary', fallbacks: ['backup'] } },
    budgets: { defaultGuildUsdPerDay: budget },
    reliability: {
      timeoutMs: 200,
      retries: 2,
      backoffBaseMs: 100,
      backoffMaxMs: 400,
      maxRetryAfterMs: 5000,
      cooldownAfterFailures: 3,
      cooldownMs: 10_000,
      ...reliability,
    },
  });

function setup(reliability: Record<string, number> = {}, budget = 100) {
  const p1 = new Scripted('p1');
  const p2 = new Scripted('p2');
  const budgets = new MemoryBudgetStore();
  const usage: UsageRecord[] = [];
  const sleeps: number[] = [];
  let now = Date.parse('2026-11-22T12:00:00Z');
  const cfg = config(reliability, budget);
  const gw = new LlmGateway({
    config: cfg,
    providers: new Map<string, Provider>([
      ['p1', p1],
      ['p2', p2],
      ['off', new OfflineProvider('off')],
    ]),
    budgets,
    policy: { purposes: () => cfg.purposes },
    usage: { record: (u) => usage.push(u) },
    secrets: ['my-secret-value'],
    now: () => now,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  });
  return { gw, p1, p2, budgets, usage, sleeps, advance: (ms: number) => (now += ms) };
}

const ask = (model = 'purpose:agent', extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model,
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 100,
  ...extra,
});
const meta = (guildId = 'g1') => ({ guildId, signal: new AbortController().signal });

describe('LlmGateway', () => {
  it('retries with backoff, then falls back, and records the ledger row', async () => {
    const { gw, p1, p2, usage, sleeps, budgets } = setup();
    p1.script = [{ status: 500 }, { status: 502 }, { status: 503 }];
    const r = await gw.chat(ask(), meta());
    expect(r.model.id).toBe('backup');
    expect(r.fallbacks).toEqual(['primary']);
    expect(p1.calls).toHaveLength(3);
    expect(p2.calls).toHaveLength(1);
    expect(sleeps).toEqual([75, 150]);
    await gw.drain();
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({
      outcome: 'ok',
      model: 'backup',
      purpose: 'agent',
      fallbacks: ['primary'],
      attempts: 4,
      inputTokens: 100,
      outputTokens: 10,
      costUsd: 0.00011,
    });
    expect([...budgets.rows.values()][0]).toEqual({ spent: 110, reserved: 0 });
  });

  it('waits what Retry-After says, and moves on when it is too long', async () => {
    const a = setup();
    a.p1.script = [{ status: 429, headers: { 'retry-after': '2' } }];
    expect((await a.gw.chat(ask(), meta())).model.id).toBe('primary');
    expect(a.sleeps).toEqual([2000]);
    const b = setup();
    b.p1.script = [{ status: 429, headers: { 'retry-after': '60' } }];
    expect((await b.gw.chat(ask(), meta())).model.id).toBe('backup');
    expect(b.sleeps).toEqual([]);
  });

  it('does not retry a request the upstream calls invalid', async () => {
    const { gw, p1, p2 } = setup();
    p1.script = [{ status: 400, message: 'bad field' }];
    await expect(gw.chat(ask(), meta())).rejects.toMatchObject({
      status: 400,
      code: 'upstream_rejected',
    });
    expect(p1.calls).toHaveLength(1);
    expect(p2.calls).toHaveLength(0);
  });

  it('times out a hanging attempt', async () => {
    const { gw, p1 } = setup({ retries: 0 });
    p1.script = ['hang'];
    const r = await gw.chat(ask(), meta());
    expect(r.model.id).toBe('backup');
  });

  it('cools a deployment down and brings it back after the cooldown', async () => {
    const { gw, p1, advance } = setup({ retries: 0, cooldownAfterFailures: 2, cooldownMs: 1000 });
    p1.script = [{ status: 500 }, { status: 500 }];
    await gw.chat(ask(), meta());
    await gw.chat(ask(), meta());
    expect(p1.calls).toHaveLength(2);
    expect((await gw.chat(ask(), meta())).fallbacks).toEqual(['primary']);
    expect(p1.calls).toHaveLength(2);
    advance(1001);
    expect((await gw.chat(ask(), meta())).model.id).toBe('primary');
  });

  it('refuses with budget_exhausted before calling anyone', async () => {
    const { gw, p1, usage } = setup({}, 0.0001);
    const e = await gw.chat(ask('primary', { max_tokens: 1000 }), meta()).catch((x) => x);
    expect(e).toBeInstanceOf(GatewayError);
    expect(e).toMatchObject({ status: 429, code: 'budget_exhausted' });
    expect(e.retryAfterSec).toBe(12 * 3600);
    expect(p1.calls).toHaveLength(0);
    expect(usage[0]).toMatchObject({ outcome: 'budget_exhausted', model: null });
    // a free model still answers
    expect((await gw.chat(ask('free'), meta())).completion.choices[0].message.content).toMatch(
      /^(Hey|Hi|Hello)\b/,
    );
  });

  it('never lets concurrent requests spend or reserve beyond the budget', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 20_000 }),
        async (caps, budgetMicros) => {
          const { gw, budgets, p1 } = setup({}, budgetMicros / 1e6);
          // Upstreams bill at most the capped output and fewer prompt tokens than the (high) estimate.
          p1.usage = { prompt: 2, completion: 2000 };
          await Promise.all(
            caps.map((max_tokens) =>
              gw.chat(ask('primary', { max_tokens }), meta()).catch(() => undefined),
            ),
          );
          await gw.drain();
          const row = [...budgets.rows.values()][0] ?? { spent: 0, reserved: 0 };
          expect(row.reserved).toBe(0);
          expect(row.spent).toBeLessThanOrEqual(budgetMicros);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('fails a stream over only before the first chunk', async () => {
    const { gw, p1, usage } = setup({ retries: 0 });
    p1.script = [{ status: 500 }];
    const s = await gw.chatStream(ask(), meta());
    expect(s.model.id).toBe('backup');
    const text: string[] = [];
    for await (const c of s.chunks) text.push(c.choices[0]?.delta.content ?? '');
    expect(text.join('')).toBe('ab');
    // the usage chunk was not asked for, but it was counted
    await gw.drain();
    expect(usage[0]).toMatchObject({
      outcome: 'ok',
      inputTokens: 5,
      outputTokens: 2,
      stream: true,
    });

    const broken = setup({ retries: 0 });
    broken.p1.script = ['ok', { status: 500 }];
    const s2 = await broken.gw.chatStream(ask(), meta());
    const got: string[] = [];
    await expect(
      (async () => {
        for await (const c of s2.chunks) got.push(c.choices[0]?.delta.content ?? '');
      })(),
    ).rejects.toMatchObject({ code: 'upstream_error' });
    expect(got).toEqual(['a']);
    expect(broken.p2.calls).toHaveLength(0);
    expect(broken.usage[0]).toMatchObject({ outcome: 'failed', model: 'primary' });
  });

  it('stops at once when the caller goes away', async () => {
    const { gw, p1, p2 } = setup();
    p1.script = ['hang'];
    const ac = new AbortController();
    const pending = gw.chat(ask(), { guildId: 'g', signal: ac.signal });
    await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    await expect(pending).rejects.toMatchObject({ status: 499 });
    expect(p2.calls).toHaveLength(0);
  });

  it('never echoes a provider key from an upstream error', async () => {
    const { gw, p1, p2 } = setup({ retries: 0 });
    p1.script = [{ status: 401, message: 'Incorrect API key provided: sk-live-abcdef123456' }];
    p2.script = [{ status: 400, message: 'key my-secret-value rejected' }];
    const e = await gw.chat(ask(), meta()).catch((x) => x);
    expect(e.message).not.toContain('abcdef123456');
    expect(e.message).not.toContain('my-secret-value');
  });

  it('refuses a prompt no configured window can hold with 400 context_length_exceeded', async () => {
    const cfg = parseLlmConfig({
      providers: [{ id: 'off', kind: 'offline' }],
      models: [
        {
          id: 'tiny',
          provider: 'off',
          upstream: 'echo',
          inputUsdPerMTok: 0,
          outputUsdPerMTok: 0,
          contextWindow: 10,
        },
      ],
    });
    const gw = new LlmGateway({
      config: cfg,
      providers: new Map([['off', new OfflineProvider('off')]]),
      budgets: new MemoryBudgetStore(),
      policy: { purposes: () => ({}) },
      usage: { record: () => undefined },
    });
    await expect(
      gw.chat(ask('tiny', { messages: [{ role: 'user', content: 'x'.repeat(300) }] }), meta()),
    ).rejects.toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
      param: 'messages',
    });
  });

  it('lists models and purposes', () => {
    const ids = setup()
      .gw.listModels()
      .data.map((m) => m.id);
    expect(ids).toEqual(['primary', 'backup', 'free', 'purpose:agent']);
  });
});
