import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsPositive,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { LLM_PURPOSES } from '@dirigent/contracts';
import { validateFields, isRecord, Optional, Satisfies, type Issue } from './validation';

/** The purposes Dirigent's own services route by (others may be configured too). */
export const KNOWN_PURPOSES = LLM_PURPOSES;

const ID = /^[A-Za-z0-9_.:/-]{1,200}$/;
const PURPOSE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;
const isUrl = (v: unknown) => typeof v === 'string' && URL.canParse(v);
const Id = () => Matches(ID, { message: 'must be 1-200 letters, digits or _.:/-' });

export class ProviderConfig {
  @Id() id: string;
  @IsIn(['openai', 'anthropic', 'offline']) kind: 'openai' | 'anthropic' | 'offline';
  @Optional() @Satisfies(isUrl, 'must be a URL') baseUrl?: string;
  /** Name of the environment variable holding the key; the key itself never sits in a file. */
  @Optional()
  @Matches(ENV_NAME, { message: 'must be an environment variable name' })
  apiKeyEnv?: string;
}

export class ModelConfig {
  @Id() id: string;
  @IsString() provider: string;
  /** The provider's own model name. */
  @IsString() @MinLength(1) upstream: string;
  @IsNumber() @Min(0) inputUsdPerMTok: number;
  @IsNumber() @Min(0) outputUsdPerMTok: number;
  @Optional() @IsInt() @IsPositive() contextWindow?: number;
  /** Output cap applied when the caller names none (the reservation assumes it). */
  @Optional() @IsInt() @IsPositive() maxOutputTokens?: number;
  /** `embedding` models are never picked as a larger-window chat fallback. */
  @IsIn(['chat', 'embedding']) type: 'chat' | 'embedding' = 'chat';
}

export class PurposeRoute {
  @IsString() @MinLength(1) model: string;
  @IsArray() @IsString({ each: true }) @MinLength(1, { each: true }) fallbacks: string[] = [];
}

const isUsd = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export class Budgets {
  @IsNumber() @Min(0) defaultGuildUsdPerDay: number;
  @IsObject()
  @Satisfies((v) => Object.values(v as object).every(isUsd), 'must map guild ids to USD ≥ 0')
  guilds: Record<string, number> = {};
}

/** Retry, timeout and cooldown tunables; every field has a production default. */
export class Reliability {
  /** Per attempt: time to the whole answer, or to the first chunk and between chunks. */
  @IsInt() @IsPositive() timeoutMs = 60_000;
  /** Retries of one deployment before moving to the next fallback. */
  @IsInt() @Min(0) @Max(10) retries = 2;
  @IsInt() @Min(0) backoffBaseMs = 250;
  @IsInt() @Min(0) backoffMaxMs = 4_000;
  /** A `Retry-After` longer than this moves on to the next fallback instead of waiting. */
  @IsInt() @Min(0) maxRetryAfterMs = 10_000;
  /** Consecutive failed attempts that put a deployment in cooldown. */
  @IsInt() @IsPositive() cooldownAfterFailures = 3;
  @IsInt() @Min(0) cooldownMs = 30_000;
  /** Output cap when neither the caller nor the model names one. */
  @IsInt() @IsPositive() defaultMaxOutputTokens = 4096;
  /** How often a gateway instance proves it is alive (its reservations stay held). */
  @IsInt() @IsPositive() instanceHeartbeatMs = 10_000;
  /** Silence after which an instance counts as dead and its reservations are released. */
  @IsInt() @IsPositive() instanceStaleMs = 60_000;
}

/** Each purpose's route as a {@link PurposeRoute} (a record class-transformer cannot type). */
function asRoutes(value: unknown): unknown {
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, isRecord(v) ? plainToInstance(PurposeRoute, v) : v]),
  );
}

export class LlmConfig {
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => ProviderConfig)
  providers: ProviderConfig[];

  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => ModelConfig)
  models: ModelConfig[];

  @IsObject()
  @Transform(({ obj }) => asRoutes((obj as Record<string, unknown>).purposes))
  purposes: Record<string, PurposeRoute> = {};

  @IsObject()
  @ValidateNested()
  @Type(() => Budgets)
  budgets: Budgets = Object.assign(new Budgets(), { defaultGuildUsdPerDay: 5 });

  @IsObject()
  @ValidateNested()
  @Type(() => Reliability)
  reliability: Reliability = new Reliability();
}

export class LlmConfigError extends Error {}

/** The purpose records, which class-validator does not descend into. */
function purposeIssues(cfg: LlmConfig): Issue[] {
  if (!isRecord(cfg.purposes)) return [];
  const out: Issue[] = [];
  for (const [purpose, route] of Object.entries(cfg.purposes)) {
    if (!PURPOSE.test(purpose))
      out.push({ path: ['purposes', purpose], message: 'purpose names are lowercase tokens' });
    if (!(route instanceof PurposeRoute)) {
      out.push({ path: ['purposes', purpose], message: 'must be an object' });
      continue;
    }
    for (const i of validateFields(PurposeRoute, route, true).issues)
      out.push({ path: ['purposes', purpose, ...i.path], message: i.message });
  }
  return out;
}

/** What the fields alone cannot say: duplicates and references to unconfigured ids. */
function referenceIssues(cfg: LlmConfig): Issue[] {
  const out: Issue[] = [];
  const providers = new Set<string>();
  cfg.providers.forEach((p, i) => {
    if (providers.has(p.id))
      out.push({ path: ['providers', `${i}`, 'id'], message: 'is duplicated' });
    providers.add(p.id);
  });
  const models = new Set<string>();
  cfg.models.forEach((m, i) => {
    if (models.has(m.id)) out.push({ path: ['models', `${i}`, 'id'], message: 'is duplicated' });
    if (m.id.startsWith('purpose:'))
      out.push({ path: ['models', `${i}`, 'id'], message: 'is reserved' });
    models.add(m.id);
    if (!providers.has(m.provider))
      out.push({
        path: ['models', `${i}`, 'provider'],
        message: `names no configured provider (${m.provider})`,
      });
  });
  for (const [purpose, route] of Object.entries(cfg.purposes)) {
    [route.model, ...route.fallbacks].forEach((id, i) => {
      if (!models.has(id))
        out.push({
          path: ['purposes', purpose, i === 0 ? 'model' : `fallbacks.${i - 1}`],
          message: `names no configured model (${id})`,
        });
    });
  }
  return out;
}

function describe(found: Issue[]): string {
  return found.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ');
}

/**
 * Validates a parsed configuration object; throws an LlmConfigError naming every bad field.
 *
 * @example
 * const cfg = parseLlmConfig({ providers: [{ id: 'off', kind: 'offline' }], models: [...] });
 */
export function parseLlmConfig(input: unknown): LlmConfig {
  if (!isRecord(input)) throw new LlmConfigError('(root) must be an object');
  const { value, issues } = validateFields(LlmConfig, input, true);
  const found = [...issues, ...purposeIssues(value)];
  if (!found.length) found.push(...referenceIssues(value));
  if (found.length) throw new LlmConfigError(describe(found));
  return value;
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

/** The purposes whose answer is said in a channel: the offline model replies to them. */
const SPEAKING: readonly string[] = [
  'synth-low',
  'synth-mid',
  'synth-high',
  'orchestrate',
  'agent',
  'subagent-research',
];

/**
 * No keys needed: the offline models. Speaking purposes (Dit's synthesizer and research,
 * Molt, the demo agents) get `offline`, a weight-free participant that answers the message
 * from what the prompt carries; the rest (`router-classify`, memory's `extract`,
 * `epoch-summarize`, `memory` and `rerank`) get `no-reply`, which passes (a rerank without
 * an order keeps memory's own ranking). Embeddings are the hashed embedder.
 */
export function defaultLlmConfig(): LlmConfig {
  const free = { provider: 'offline', inputUsdPerMTok: 0, outputUsdPerMTok: 0 };
  return parseLlmConfig({
    providers: [{ id: 'offline', kind: 'offline' }],
    models: [
      { id: 'no-reply', upstream: 'no-reply', ...free },
      { id: 'offline', upstream: 'reply', ...free },
    ],
    purposes: Object.fromEntries(
      KNOWN_PURPOSES.map((p) => [p, { model: SPEAKING.includes(p) ? 'offline' : 'no-reply' }]),
    ),
    budgets: { defaultGuildUsdPerDay: 5 },
  });
}
