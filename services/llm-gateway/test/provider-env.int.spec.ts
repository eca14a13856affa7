import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { FakeUpstream } from './fake-upstreams';
import { startGateway, type RunningGateway } from './harness';

/** The gateway with no DIRIGENT_LLM_CONFIG: its providers come from the environment. */
describe('llm-gateway: providers chosen from the environment', () => {
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  let gw: RunningGateway | undefined;

  beforeAll(async () => {
    openai = await FakeUpstream.start('openai');
    anthropic = await FakeUpstream.start('anthropic');
  });
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
    openai.seen.length = 0;
    anthropic.seen.length = 0;
    openai.behave = () => ({ kind: 'ok' });
  });
  afterAll(async () => {
    await openai.close();
    await anthropic.close();
  });

  /** The gateway, loopback and tokenless (no config file), asked once per purpose. */
  const ask = async (env: NodeJS.ProcessEnv, purpose: string) => {
    gw = await startGateway(undefined, env);
    const client = new OpenAI({ apiKey: 'anything', baseURL: gw.baseURL, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: `purpose:${purpose}`,
      messages: [{ role: 'user', content: 'hi there' }],
    });
    return { client, text: res.choices[0].message.content };
  };

  it('an OpenAI-compatible server (OPENAI_BASE_URL, OPENAI_MODEL) serves every chat purpose', async () => {
    const env = { OPENAI_BASE_URL: openai.baseUrl, OPENAI_MODEL: 'llama3.1:8b' };
    for (const purpose of ['agent', 'synth-mid', 'router-classify', 'extract', 'orchestrate']) {
      const before = openai.hits('/chat/completions');
      await ask(env, purpose);
      expect(openai.hits('/chat/completions')).toBe(before + 1);
      await gw!.close();
      gw = undefined;
    }
    expect(openai.seen.every((s) => s.body.model === 'llama3.1:8b')).toBe(true);
    // No key given: none sent but the SDK's placeholder.
    expect(openai.seen[0].headers.authorization).toBe('Bearer not-needed');
    expect(anthropic.seen).toEqual([]);
  });

  it('OPENAI_API_KEY goes with the requests; embeddings stay offline behind a base URL', async () => {
    const { client } = await ask(
      {
        OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_MODEL: 'local-model',
        OPENAI_API_KEY: 'sk-local-1',
      },
      'agent',
    );
    expect(openai.seen[0].headers.authorization).toBe('Bearer sk-local-1');
    const emb = await client.embeddings.create({
      model: 'purpose:embed',
      input: 'raised beds',
      encoding_format: 'float',
    });
    expect(emb.data[0].embedding.length).toBeGreaterThan(0);
    expect(openai.hits('/embeddings')).toBe(0);
  });

  it('ANTHROPIC_API_KEY alone: Anthropic answers, with its key and model', async () => {
    await ask(
      {
        ANTHROPIC_API_KEY: 'sk-ant-env',
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        ANTHROPIC_MODEL: 'claude-fake-9',
      },
      'epoch-summarize',
    );
    expect(anthropic.hits('/v1/messages')).toBe(1);
    expect(anthropic.seen[0].body.model).toBe('claude-fake-9');
    expect(anthropic.seen[0].headers['x-api-key']).toBe('sk-ant-env');
    expect(openai.seen).toEqual([]);
  });

  it('both: the OpenAI-compatible one first, Anthropic when it fails', async () => {
    openai.behave = () => ({ kind: 'error', status: 500 });
    await ask(
      {
        OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_MODEL: 'local-model',
        ANTHROPIC_API_KEY: 'sk-ant-env',
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
      },
      'agent',
    );
    expect(openai.hits('/chat/completions')).toBeGreaterThan(0);
    expect(anthropic.hits('/v1/messages')).toBe(1);
    expect(anthropic.seen[0].body.model).toBe('claude-haiku-4-5');
  });

  it('none of them: the offline models; a DIRIGENT_LLM_CONFIG file wins over the keys', async () => {
    const offline = await ask({}, 'agent');
    expect(offline.text).toMatch(/^(Hey|Hi|Hello)\b/);
    await gw!.close();
    gw = undefined;
    const path = join(mkdtempSync(join(tmpdir(), 'provider-env-')), 'llm.json');
    writeFileSync(
      path,
      JSON.stringify({
        providers: [{ id: 'offline', kind: 'offline' }],
        models: [
          {
            id: 'quiet',
            provider: 'offline',
            upstream: 'no-reply',
            inputUsdPerMTok: 0,
            outputUsdPerMTok: 0,
          },
        ],
        purposes: { agent: { model: 'quiet' } },
      }),
    );
    const filed = await ask(
      { DIRIGENT_LLM_CONFIG: path, OPENAI_BASE_URL: openai.baseUrl, OPENAI_MODEL: 'm' },
      'agent',
    );
    expect(filed.text).toBe('NO_REPLY');
    expect(openai.seen).toEqual([]);
  });

  it('refuses to start on a base URL that is none, naming the variable', async () => {
    await expect(startGateway(undefined, { OPENAI_BASE_URL: 'not a url' })).rejects.toThrow(
      /OPENAI_BASE_URL must be a URL/,
    );
    await expect(startGateway(undefined, { OPENAI_BASE_URL: openai.baseUrl })).rejects.toThrow(
      /OPENAI_MODEL must name the model/,
    );
  });
});
