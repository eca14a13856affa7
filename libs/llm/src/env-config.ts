import {
  defaultLlmConfig,
  KNOWN_PURPOSES,
  LlmConfigError,
  parseLlmConfig,
  type LlmConfig,
} from './config';

/** Known list prices (USD per million tokens, input and output) of the default models. */
const PRICES: Record<string, readonly [number, number]> = {
  'gpt-4o-mini': [0.15, 0.6],
  'gpt-4o': [2.5, 10],
  'gpt-4.1-mini': [0.4, 1.6],
  'gpt-4.1': [2, 8],
  'claude-haiku-4-5': [1, 5],
  'claude-sonnet-4-6': [3, 15],
  'text-embedding-3-small': [0.02, 0],
};
const OPENAI_DEFAULT = 'gpt-4o-mini';
const ANTHROPIC_DEFAULT = 'claude-haiku-4-5';
const OPENAI_EMBEDDING = 'text-embedding-3-small';

/** The models the gateway uses, and the one line that says which. */
export interface LlmChoice {
  config: LlmConfig;
  /** For `npm start`'s log: which providers serve the purposes, or that it is offline. */
  summary: string;
}

const price = (upstream: string, local: boolean) => {
  const [inputUsdPerMTok, outputUsdPerMTok] = local ? [0, 0] : (PRICES[upstream] ?? [0, 0]);
  return { inputUsdPerMTok, outputUsdPerMTok };
};

/**
 * The gateway's configuration when no `DIRIGENT_LLM_CONFIG` names one, from the provider
 * variables in the environment: `OPENAI_API_KEY` (OpenAI, `OPENAI_MODEL`, default
 * `gpt-4o-mini`), `OPENAI_BASE_URL` (any OpenAI-compatible server, such as Ollama or a
 * llama.cpp server; `OPENAI_MODEL` names its model, the key is optional) and
 * `ANTHROPIC_API_KEY` (`ANTHROPIC_MODEL`, default `claude-haiku-4-5`; `ANTHROPIC_BASE_URL`
 * for a proxy). Every chat purpose goes to the first of them, the others as its fallbacks;
 * embeddings go to OpenAI's `text-embedding-3-small` with an OpenAI key and no base URL, else
 * to the offline hashed embedder. With none of them set: the built-in offline configuration.
 * Throws an LlmConfigError naming the variable that is wrong.
 *
 * @example
 * const { config, summary } = llmFromEnvironment({ OPENAI_API_KEY: 'sk-…' });
 * // summary: 'models: OpenAI gpt-4o-mini for every purpose (OPENAI_API_KEY); embeddings: text-embedding-3-small'
 */
export function llmFromEnvironment(env: NodeJS.ProcessEnv): LlmChoice {
  const providers: Record<string, unknown>[] = [{ id: 'offline', kind: 'offline' }];
  const models: Record<string, unknown>[] = [
    { id: 'no-reply', provider: 'offline', upstream: 'no-reply', ...price('', true) },
    {
      id: 'offline-embed',
      provider: 'offline',
      upstream: 'hashed',
      type: 'embedding',
      ...price('', true),
    },
  ];
  const chat: string[] = [];
  const said: string[] = [];
  const url = (name: string, value: string | undefined) => {
    if (value && !URL.canParse(value)) throw new LlmConfigError(`${name} must be a URL`);
    return value || undefined;
  };
  const openaiUrl = url('OPENAI_BASE_URL', env.OPENAI_BASE_URL);
  const openaiKey = env.OPENAI_API_KEY;
  if (openaiUrl || openaiKey) {
    const upstream = env.OPENAI_MODEL || (openaiUrl ? '' : OPENAI_DEFAULT);
    if (!upstream)
      throw new LlmConfigError(
        "OPENAI_MODEL must name the model of the server at OPENAI_BASE_URL (for Ollama e.g. 'llama3.1:8b')",
      );
    providers.push({
      id: 'openai',
      kind: 'openai',
      ...(openaiUrl ? { baseUrl: openaiUrl } : {}),
      ...(openaiKey ? { apiKeyEnv: 'OPENAI_API_KEY' } : {}),
    });
    models.push({
      id: `openai/${upstream}`,
      provider: 'openai',
      upstream,
      ...price(upstream, !!openaiUrl),
    });
    chat.push(`openai/${upstream}`);
    said.push(
      openaiUrl
        ? `the OpenAI-compatible server at ${openaiUrl} (${upstream})`
        : `OpenAI ${upstream} (OPENAI_API_KEY)`,
    );
  }
  if (env.ANTHROPIC_API_KEY) {
    const upstream = env.ANTHROPIC_MODEL || ANTHROPIC_DEFAULT;
    const baseUrl = url('ANTHROPIC_BASE_URL', env.ANTHROPIC_BASE_URL);
    providers.push({
      id: 'anthropic',
      kind: 'anthropic',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      ...(baseUrl ? { baseUrl } : {}),
    });
    models.push({
      id: `anthropic/${upstream}`,
      provider: 'anthropic',
      upstream,
      ...price(upstream, false),
    });
    chat.push(`anthropic/${upstream}`);
    said.push(`Anthropic ${upstream} (ANTHROPIC_API_KEY)`);
  }
  if (!chat.length) {
    return {
      config: defaultLlmConfig(),
      summary:
        'models: offline (none of OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_BASE_URL is set): the agents answer with the offline stand-in',
    };
  }
  let embed = 'offline-embed';
  if (openaiKey && !openaiUrl) {
    embed = `openai/${OPENAI_EMBEDDING}`;
    models.push({
      id: embed,
      provider: 'openai',
      upstream: OPENAI_EMBEDDING,
      type: 'embedding',
      ...price(OPENAI_EMBEDDING, false),
    });
  }
  const [model, ...fallbacks] = chat;
  const config = parseLlmConfig({
    providers,
    models,
    purposes: Object.fromEntries(
      KNOWN_PURPOSES.map((p) => [p, p === 'embed' ? { model: embed } : { model, fallbacks }]),
    ),
    budgets: { defaultGuildUsdPerDay: 5 },
  });
  return {
    config,
    summary: `models: ${said.join(', then ')} for every purpose; embeddings: ${
      embed === 'offline-embed' ? 'offline (hashed)' : OPENAI_EMBEDDING
    }`,
  };
}

/**
 * What `npm start` says of the models, and what the gateway loads: the file
 * `DIRIGENT_LLM_CONFIG` names wins over the provider variables.
 */
export function describeLlmChoice(env: NodeJS.ProcessEnv): string {
  const path = env.DIRIGENT_LLM_CONFIG;
  return path ? `models: from DIRIGENT_LLM_CONFIG (${path})` : llmFromEnvironment(env).summary;
}
