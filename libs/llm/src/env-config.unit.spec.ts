import { KNOWN_PURPOSES } from './config';
import { describeLlmChoice, llmFromEnvironment } from './env-config';

describe('the models chosen from the environment', () => {
  it('OPENAI_API_KEY: OpenAI for every purpose, its embedding model for embed; one line says so', () => {
    const { config, summary } = llmFromEnvironment({ OPENAI_API_KEY: 'sk-1' });
    for (const p of KNOWN_PURPOSES) {
      expect([p, config.purposes[p]?.model]).toEqual([
        p,
        p === 'embed' ? 'openai/text-embedding-3-small' : 'openai/gpt-4o-mini',
      ]);
    }
    expect(config.providers.find((p) => p.id === 'openai')).toMatchObject({
      kind: 'openai',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
    expect(summary).toBe(
      'models: OpenAI gpt-4o-mini (OPENAI_API_KEY) for every purpose; embeddings: text-embedding-3-small',
    );
    expect(summary).not.toContain('\n');
    expect(JSON.stringify(config)).not.toContain('sk-1');
  });

  it('a local server and Anthropic: the local one first, Anthropic as the fallback', () => {
    const { config, summary } = llmFromEnvironment({
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_MODEL: 'llama3.1:8b',
      ANTHROPIC_API_KEY: 'sk-ant',
    });
    expect(config.purposes.agent).toMatchObject({
      model: 'openai/llama3.1:8b',
      fallbacks: ['anthropic/claude-haiku-4-5'],
    });
    expect(config.purposes.embed.model).toBe('offline-embed');
    expect(config.models.find((m) => m.id === 'openai/llama3.1:8b')?.inputUsdPerMTok).toBe(0);
    expect(summary).toMatch(
      /^models: the OpenAI-compatible server at http:\/\/127\.0\.0\.1:11434\/v1 \(llama3\.1:8b\), then Anthropic claude-haiku-4-5 \(ANTHROPIC_API_KEY\) for every purpose; embeddings: offline/,
    );
  });

  it('nothing set: offline, and saying which variables would change that', () => {
    const { config, summary } = llmFromEnvironment({});
    expect(config.purposes.agent.model).toBe('offline');
    expect(summary).toMatch(
      /^models: offline \(none of OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_BASE_URL/,
    );
  });

  it('DIRIGENT_LLM_CONFIG wins, and is what the line names', () => {
    expect(describeLlmChoice({ DIRIGENT_LLM_CONFIG: '/etc/llm.yaml', OPENAI_API_KEY: 'x' })).toBe(
      'models: from DIRIGENT_LLM_CONFIG (/etc/llm.yaml)',
    );
  });
});
