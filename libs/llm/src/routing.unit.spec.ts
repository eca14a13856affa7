import { defaultLlmConfig, parseLlmConfig } from './config';
import { contextAwareChain, resolveRoute } from './routing';

const config = parseLlmConfig({
  providers: [
    { id: 'a', kind: 'openai' },
    { id: 'b', kind: 'anthropic' },
  ],
  models: [
    {
      id: 'small',
      provider: 'a',
      upstream: 's',
      inputUsdPerMTok: 0,
      outputUsdPerMTok: 0,
      contextWindow: 100,
    },
    {
      id: 'mid',
      provider: 'a',
      upstream: 'm',
      inputUsdPerMTok: 0,
      outputUsdPerMTok: 0,
      contextWindow: 1000,
    },
    {
      id: 'big',
      provider: 'b',
      upstream: 'b',
      inputUsdPerMTok: 0,
      outputUsdPerMTok: 0,
      contextWindow: 100000,
    },
    {
      id: 'emb',
      provider: 'a',
      upstream: 'e',
      inputUsdPerMTok: 0,
      outputUsdPerMTok: 0,
      contextWindow: 500,
      type: 'embedding',
    },
  ],
  purposes: { agent: { model: 'small', fallbacks: ['big', 'small'] }, synth: { model: 'mid' } },
});

describe('purpose routing', () => {
  it('routes model "purpose:<name>" to the primary and its fallbacks, without duplicates', () => {
    const r = resolveRoute(config, config.purposes, { model: 'purpose:agent' });
    expect(r.ok && r.plan.purpose).toBe('agent');
    expect(r.ok && r.plan.chain.map((m) => m.id)).toEqual(['small', 'big']);
  });

  it('lets the x-dirigent-purpose header win over the model field', () => {
    const r = resolveRoute(config, config.purposes, { model: 'small', purposeHeader: 'synth' });
    expect(r.ok && r.plan.chain.map((m) => m.id)).toEqual(['mid']);
  });

  it('sends a model id to that model alone', () => {
    const r = resolveRoute(config, config.purposes, { model: 'big' });
    expect(r).toEqual({ ok: true, plan: { purpose: null, chain: [config.models[2]] } });
  });

  it('names the field of an unknown purpose or model', () => {
    expect(resolveRoute(config, config.purposes, { model: 'purpose:nope' })).toMatchObject({
      ok: false,
      status: 400,
      param: 'model',
      code: 'unknown_purpose',
    });
    expect(
      resolveRoute(config, config.purposes, { model: 'x', purposeHeader: 'Bad Name' }),
    ).toMatchObject({ ok: false, status: 400, param: 'x-dirigent-purpose' });
    expect(resolveRoute(config, config.purposes, { model: 'gpt-9' })).toMatchObject({
      ok: false,
      status: 404,
      code: 'model_not_found',
    });
  });

  it('replaces a model whose window is too small by the next larger chat model, same provider first', () => {
    const chain = [config.models[0], config.models[2]];
    expect(contextAwareChain(config, chain, 10).map((m) => m.id)).toEqual(['small', 'big']);
    expect(contextAwareChain(config, chain, 400).map((m) => m.id)).toEqual(['mid', 'big']);
    expect(contextAwareChain(config, chain, 10_000).map((m) => m.id)).toEqual(['big']);
    expect(contextAwareChain(config, chain, 1_000_000)).toEqual([]);
  });

  it('has a default configuration: speaking purposes offline, the others no-reply', () => {
    const d = defaultLlmConfig();
    expect(d.models.map((m) => m.id)).toEqual(['no-reply', 'offline']);
    const first = (purpose: string) => {
      const r = resolveRoute(d, d.purposes, { model: `purpose:${purpose}` });
      return r.ok && r.plan.chain[0].id;
    };
    expect(first('router-classify')).toBe('no-reply');
    expect(first('extract')).toBe('no-reply');
    for (const p of ['synth-low', 'synth-mid', 'synth-high', 'orchestrate', 'agent']) {
      expect(first(p)).toBe('offline');
    }
  });
});
