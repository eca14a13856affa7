import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { LLM_PURPOSES, LlmChatRequest, LlmEmbedRequest, NO_REPLY } from '@dirigent/contracts';
import { writeLlmConfig } from '@dirigent/playground';
import { LlmHandlers } from '../handlers/llm.handlers';
import { FakeUpstream } from './fake-upstreams';
import { startGateway } from './harness';

const root = join(__dirname, '../../..');
type Raw = { providers: { kind: string; baseUrl?: string }[] } & Record<string, unknown>;

/**
 * Every configuration the project ships, as the gateway loads it: network providers
 * pointed at the local OpenAI/Anthropic fakes (keys from the environment as configured),
 * offline ones left offline. `undefined`: no DIRIGENT_LLM_CONFIG, so the built-in default
 * (no provider variables) or the one made from the provider variables.
 */
function shipped(openai: FakeUpstream, anthropic: FakeUpstream): [string, Raw | undefined][] {
  const atFakes = (raw: Raw): Raw => ({
    ...raw,
    providers: raw.providers.map((p) =>
      p.kind === 'openai'
        ? { ...p, baseUrl: openai.baseUrl }
        : p.kind === 'anthropic'
          ? { ...p, baseUrl: anthropic.baseUrl }
          : p,
    ),
  });
  const yaml = (path: string) => atFakes(parseYaml(readFileSync(join(root, path), 'utf8')) as Raw);
  const playground = writeLlmConfig(mkdtempSync(join(tmpdir(), 'shipped-playground-')));
  return [
    ['the built-in default', undefined],
    ['the providers of the environment', undefined],
    ['deploy/llm/llm-config.yaml', yaml('deploy/llm/llm-config.yaml')],
    ['services/llm-gateway/llm.example.yaml', yaml('services/llm-gateway/llm.example.yaml')],
    ['the playground', JSON.parse(readFileSync(playground, 'utf8')) as Raw],
  ];
}

describe('every shipped gateway configuration routes every purpose the services call', () => {
  let openai: FakeUpstream;
  let anthropic: FakeUpstream;
  const configs: [string, Raw | undefined][] = [];
  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([
      FakeUpstream.start('openai'),
      FakeUpstream.start('anthropic'),
    ]);
    configs.push(...shipped(openai, anthropic));
  });
  afterAll(async () => {
    await Promise.all([openai?.close(), anthropic?.close()]);
  });

  it.each([
    'the built-in default',
    'the providers of the environment',
    'deploy/llm/llm-config.yaml',
    'services/llm-gateway/llm.example.yaml',
    'the playground',
  ])('%s answers each purpose', async (name) => {
    const index = configs.findIndex(([n]) => n === name);
    const config = configs[index][1];
    // The provider SDKs warn on the console when a model they call is deprecated.
    const warn = jest.spyOn(console, 'warn');
    const keys = { OPENAI_API_KEY: 'sk-test-openai', ANTHROPIC_API_KEY: 'sk-ant-test' };
    const offline = name === 'the built-in default';
    const gw = await startGateway(
      config,
      config
        ? keys
        : offline
          ? {}
          : {
              ...keys,
              OPENAI_BASE_URL: openai.baseUrl,
              OPENAI_MODEL: 'gpt-4o-mini',
              ANTHROPIC_BASE_URL: anthropic.baseUrl,
            },
    );
    try {
      const handlers = gw.app.get(LlmHandlers);
      const guildId = `shipped-${index}-${Date.now()}`;
      const answers: { config: string; purpose: string; answer: string }[] = [];
      for (const purpose of LLM_PURPOSES) {
        let answer: string;
        try {
          if (purpose === 'embed') {
            const r = (await handlers.embed(
              LlmEmbedRequest.create({ guildId, purpose, request: { input: 'hello there' } }),
            )) as { response: { data: unknown[] } };
            answer = r.response.data.length === 1 ? 'embedded' : 'no vector';
          } else {
            const r = (await handlers.chat(
              LlmChatRequest.create({
                guildId,
                purpose,
                request: { messages: [{ role: 'user', content: 'hello there, what is new?' }] },
              }),
            )) as { completion: { choices: { message: { content: string | null } }[] } };
            answer = r.completion.choices[0]?.message.content ? 'answered' : 'empty';
            if (offline && answer === 'answered') {
              const text = r.completion.choices[0].message.content!;
              // Offline, the purposes whose answer is said in a channel say something.
              const speaks = /^(synth-|orchestrate|agent|subagent-research)/.test(purpose);
              if (speaks && text === NO_REPLY) answer = 'silent';
            }
          }
        } catch (e) {
          answer = (e as Error).message;
        }
        answers.push({ config: name, purpose, answer });
      }
      expect(answers.filter((a) => a.answer !== 'answered' && a.answer !== 'embedded')).toEqual([]);
      const deprecated = warn.mock.calls
        .map((c) => String(c[0]))
        .filter((m) => /deprecat/i.test(m));
      expect(deprecated).toEqual([]);
    } finally {
      warn.mockRestore();
      await gw.close();
    }
  });
});
