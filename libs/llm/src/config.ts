import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** The purposes Dirigent's own services route by (others may be configured too). */
export const KNOWN_PURPOSES = [
  'router-classify',
  'subagent-research',
  'synth-low',
  'synth-mid',
  'synth-high',
  'extract',
  'embed',
  'epoch-summarize',
  'steward',
  'agent',
] as const;

const ID = /^[A-Za-z0-9_.:/-]{1,200}$/;
const PURPOSE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

export const providerSchema = z
  .object({
    id: z.string().regex(ID, 'must be 1-200 letters, digits or _.:/-'),
    kind: z.enum(['openai', 'anthropic', 'offline']),
    baseUrl: z.string().url().optional(),
    /** Name of the environment variable holding the key; the key itself never sits in a file. */
    apiKeyEnv: z.string().regex(ENV_NAME, 'must be an environment variable name').optional(),
  })
  .strict();

export const modelSchema = z
  .object({
    id: z.string().regex(ID, 'must be 1-200 letters, digits or _.:/-'),
    provider: z.string(),
    /** The provider's own model name. */
    upstream: z.string().min(1),
    inputUsdPerMTok: z.number().min(0),
    outputUsdPerMTok: z.number().min(0),
    contextWindow: z.number().int().positive().optional(),
    /** Output cap applied when the caller names none (the reservation assumes it). */
    maxOutputTokens: z.number().int().positive().optional(),
    /** `embedding` models are never picked as a larger-window chat fallback. */
    type: z.enum(['chat', 'embedding']).default('chat'),
  })
  .strict();

export const purposeRouteSchema = z
  .object({ model: z.string().min(1), fallbacks: z.array(z.string().min(1)).default([]) })
  .strict();

export const budgetsSchema = z
  .object({
    defaultGuildUsdPerDay: z.number().min(0),
    guilds: z.record(z.string(), z.number().min(0)).default({}),
  })
  .strict();

/** Retry, timeout and cooldown tunables; every field has a production default. */
export const reliabilitySchema = z
  .object({
    /** Per attempt: time to the whole answer, or to the first chunk and between chunks. */
    timeoutMs: z.number().int().positive().default(60_000),
    /** Retries of one deployment before moving to the next fallback. */
    retries: z.number().int().min(0).max(10).default(2),
    backoffBaseMs: z.number().int().min(0).default(250),
    backoffMaxMs: z.number().int().min(0).default(4_000),
    /** A `Retry-After` longer than this moves on to the next fallback instead of waiting. */
    maxRetryAfterMs: z.number().int().min(0).default(10_000),
    /** Consecutive failed attempts that put a deployment in cooldown. */
    cooldownAfterFailures: z.number().int().positive().default(3),
    cooldownMs: z.number().int().min(0).default(30_000),
    /** Output cap when neither the caller nor the model names one. */
    defaultMaxOutputTokens: z.number().int().positive().default(4096),
    /** How often a gateway instance proves it is alive (its reservations stay held). */
    instanceHeartbeatMs: z.number().int().positive().default(10_000),
    /** Silence after which an instance counts as dead and its reservations are released. */
    instanceStaleMs: z.number().int().positive().default(60_000),
  })
  .strict();

export const llmConfigSchema = z
  .object({
    providers: z.array(providerSchema).min(1),
    models: z.array(modelSchema).min(1),
    purposes: z
      .record(z.string().regex(PURPOSE, 'purpose names are lowercase tokens'), purposeRouteSchema)
      .default({}),
    budgets: budgetsSchema.default({ defaultGuildUsdPerDay: 5 }),
    reliability: reliabilitySchema.default({}),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const providers = new Set<string>();
    cfg.providers.forEach((p, i) => {
      if (providers.has(p.id))
        ctx.addIssue({ code: 'custom', path: ['providers', i, 'id'], message: 'is duplicated' });
      providers.add(p.id);
    });
    const models = new Set<string>();
    cfg.models.forEach((m, i) => {
      if (models.has(m.id))
        ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: 'is duplicated' });
      if (m.id.startsWith('purpose:'))
        ctx.addIssue({ code: 'custom', path: ['models', i, 'id'], message: 'is reserved' });
      models.add(m.id);
      if (!providers.has(m.provider))
        ctx.addIssue({
          code: 'custom',
          path: ['models', i, 'provider'],
          message: `names no configured provider (${m.provider})`,
        });
    });
    for (const [purpose, route] of Object.entries(cfg.purposes)) {
      [route.model, ...route.fallbacks].forEach((id, i) => {
        if (!models.has(id))
          ctx.addIssue({
            code: 'custom',
            path: ['purposes', purpose, i === 0 ? 'model' : `fallbacks.${i - 1}`],
            message: `names no configured model (${id})`,
          });
      });
    }
  });

export type LlmConfig = z.infer<typeof llmConfigSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type PurposeRoute = z.infer<typeof purposeRouteSchema>;
export type Reliability = z.infer<typeof reliabilitySchema>;

export class LlmConfigError extends Error {}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ');
}

/**
 * Validates a parsed configuration object; throws an LlmConfigError naming every bad field.
 *
 * @example
 * const cfg = parseLlmConfig({ providers: [{ id: 'off', kind: 'offline' }], models: [...] });
 */
export function parseLlmConfig(input: unknown): LlmConfig {
  const parsed = llmConfigSchema.safeParse(input);
  if (!parsed.success) throw new LlmConfigError(describe(parsed.error));
  return parsed.data;
}

/**
 * Reads `DIRIGENT_LLM_CONFIG` (a `.json`, `.yaml` or `.yml` file); without a path, the
 * built-in offline configuration.
 *
 * @example
 * const cfg = loadLlmConfig(process.env.DIRIGENT_LLM_CONFIG);
 */
export function loadLlmConfig(path: string | undefined): LlmConfig {
  if (!path) return defaultLlmConfig();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new LlmConfigError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  let raw: unknown;
  try {
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new LlmConfigError(`${path} is not valid JSON/YAML: ${(e as Error).message}`);
  }
  try {
    return parseLlmConfig(raw);
  } catch (e) {
    throw new LlmConfigError(`${path}: ${(e as Error).message}`);
  }
}

/** No keys needed: every purpose answers with the `no-reply` model. */
export function defaultLlmConfig(): LlmConfig {
  return parseLlmConfig({
    providers: [{ id: 'offline', kind: 'offline' }],
    models: [
      {
        id: 'no-reply',
        provider: 'offline',
        upstream: 'no-reply',
        inputUsdPerMTok: 0,
        outputUsdPerMTok: 0,
      },
    ],
    purposes: Object.fromEntries(KNOWN_PURPOSES.map((p) => [p, { model: 'no-reply' }])),
    budgets: { defaultGuildUsdPerDay: 5 },
  });
}
