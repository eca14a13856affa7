import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LLM_PURPOSES } from '@dirigent/contracts';
import { ConfigError, loadConfig } from '@dirigent/service-kit';
import { LlmGatewayConfig } from './config';

const base = { DATABASE_URL: 'postgres://x@127.0.0.1:5432/db' };

function file(content: object): string {
  const path = join(mkdtempSync(join(tmpdir(), 'llm-gw-cfg-')), 'llm.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

const withKey = {
  providers: [{ id: 'oa', kind: 'openai', apiKeyEnv: 'MY_OPENAI_KEY' }],
  models: [
    { id: 'gpt', provider: 'oa', upstream: 'gpt-4o', inputUsdPerMTok: 1, outputUsdPerMTok: 1 },
  ],
};

describe('llm-gateway configuration', () => {
  it('boots with the built-in offline configuration and no token', () => {
    const cfg = loadConfig(LlmGatewayConfig, base);
    expect(cfg.LLM_GATEWAY_PORT).toBe(3005);
    expect(cfg.DIRIGENT_GATEWAY_TOKEN).toBeUndefined();
    expect(cfg.llm.models.map((m) => m.id)).toEqual(['no-reply', 'offline']);
  });

  it('treats empty variables as unset', () => {
    const cfg = loadConfig(LlmGatewayConfig, {
      ...base,
      DIRIGENT_LLM_CONFIG: '',
      DIRIGENT_GATEWAY_TOKEN: '',
      DIRIGENT_CONTROL_TOKEN: '',
    });
    expect(cfg.DIRIGENT_GATEWAY_TOKEN).toBeUndefined();
    expect(cfg.llm.models.map((m) => m.id)).toEqual(['no-reply', 'offline']);
  });

  it('reads provider keys only from the variables the file names, and keeps no other variable', () => {
    const cfg = loadConfig(LlmGatewayConfig, {
      ...base,
      DIRIGENT_LLM_CONFIG: file(withKey),
      MY_OPENAI_KEY: 'sk-1',
      UNRELATED_SECRET: 'zzz',
    });
    expect(cfg.providerKeys).toEqual({ MY_OPENAI_KEY: 'sk-1' });
    expect(JSON.stringify(cfg)).not.toContain('zzz');
  });

  it('fails with one line naming a missing key variable, a bad file and a short token', () => {
    expect(() =>
      loadConfig(LlmGatewayConfig, { ...base, DIRIGENT_LLM_CONFIG: file(withKey) }),
    ).toThrow(
      new ConfigError('config error: MY_OPENAI_KEY is not set (the API key of provider oa)'),
    );
    expect(() =>
      loadConfig(LlmGatewayConfig, { ...base, DIRIGENT_LLM_CONFIG: file({ providers: [] }) }),
    ).toThrow(/^config error: DIRIGENT_LLM_CONFIG .*providers/);
    expect(() =>
      loadConfig(LlmGatewayConfig, { ...base, DIRIGENT_GATEWAY_TOKEN: 'short' }),
    ).toThrow(/DIRIGENT_GATEWAY_TOKEN must be at least 16 characters/);
  });
});

describe('llm.example.yaml', () => {
  it('is a valid configuration once its keys are set', () => {
    const cfg = loadConfig(LlmGatewayConfig, {
      ...base,
      DIRIGENT_LLM_CONFIG: join(__dirname, 'llm.example.yaml'),
      OPENAI_API_KEY: 'sk-a',
      ANTHROPIC_API_KEY: 'sk-b',
    });
    expect(LLM_PURPOSES.filter((p) => !cfg.llm.purposes[p])).toEqual([]);
  });
});
