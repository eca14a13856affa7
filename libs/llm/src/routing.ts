import type { LlmConfig, ModelConfig, PurposeRoute } from './config';

export const PURPOSE_PREFIX = 'purpose:';
const PURPOSE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Where a request goes: the purpose (if any) and the models to try, in order. */
export interface RoutePlan {
  purpose: string | null;
  chain: ModelConfig[];
}

export type RouteResult =
  | { ok: true; plan: RoutePlan }
  | { ok: false; status: 400 | 404; code: string; param: string; message: string };

/**
 * Resolves a request to its models. The `x-dirigent-purpose` header wins over the body's
 * `model`; `model: "purpose:<name>"` names a purpose; any other `model` must be a
 * configured model id, tried alone.
 *
 * @example
 * resolveRoute(config, purposes, { model: 'purpose:agent' });
 * // { ok: true, plan: { purpose: 'agent', chain: [primary, ...fallbacks] } }
 */
export function resolveRoute(
  config: LlmConfig,
  purposes: Record<string, PurposeRoute>,
  target: { model: string; purposeHeader?: string },
): RouteResult {
  const byId = modelIndex(config);
  let purpose: string | undefined;
  let param = 'model';
  if (target.purposeHeader !== undefined) {
    purpose = target.purposeHeader;
    param = 'x-dirigent-purpose';
  } else if (target.model.startsWith(PURPOSE_PREFIX)) {
    purpose = target.model.slice(PURPOSE_PREFIX.length);
  }
  if (purpose !== undefined) {
    if (!PURPOSE.test(purpose))
      return bad(400, 'invalid_purpose', param, `${param}: not a purpose name (${purpose})`);
    const route = purposes[purpose];
    if (!route)
      return bad(400, 'unknown_purpose', param, `${param}: no policy for purpose "${purpose}"`);
    const chain = [route.model, ...route.fallbacks]
      .map((id) => byId.get(id))
      .filter((m): m is ModelConfig => m !== undefined);
    if (!chain.length)
      return bad(400, 'unknown_purpose', param, `purpose "${purpose}" names no configured model`);
    return { ok: true, plan: { purpose, chain: dedupe(chain) } };
  }
  const model = byId.get(target.model);
  if (!model)
    return bad(404, 'model_not_found', 'model', `The model \`${target.model}\` does not exist`);
  return { ok: true, plan: { purpose: null, chain: [model] } };
}

function bad(
  status: 400 | 404,
  code: string,
  param: string,
  message: string,
): Extract<RouteResult, { ok: false }> {
  return { ok: false, status, code, param, message };
}

function dedupe(chain: ModelConfig[]): ModelConfig[] {
  const seen = new Set<string>();
  return chain.filter((m) => !seen.has(m.id) && seen.add(m.id));
}

const indexes = new WeakMap<LlmConfig, Map<string, ModelConfig>>();
function modelIndex(config: LlmConfig): Map<string, ModelConfig> {
  let index = indexes.get(config);
  if (!index) {
    index = new Map(config.models.map((m) => [m.id, m]));
    indexes.set(config, index);
  }
  return index;
}

/**
 * Whether a prompt fits a model's window. The prompt estimate is biased high (bytes/3),
 * so three quarters of it approximates a real tokenizer's count.
 */
export function fitsContext(model: ModelConfig, promptTokensEstimate: number): boolean {
  return !model.contextWindow || Math.ceil(promptTokensEstimate * 0.75) < model.contextWindow;
}

/**
 * The chat model with the smallest window larger than `than` tokens (same provider
 * first), for a request that overflowed; `undefined` when none is configured.
 */
export function largerWindowModel(
  config: LlmConfig,
  current: ModelConfig,
  than: number,
  exclude: ReadonlySet<string>,
): ModelConfig | undefined {
  return config.models
    .filter(
      (m) =>
        m.type === 'chat' &&
        m.contextWindow !== undefined &&
        m.contextWindow > than &&
        !exclude.has(m.id),
    )
    .sort(
      (a, b) =>
        Number(a.provider !== current.provider) - Number(b.provider !== current.provider) ||
        a.contextWindow! - b.contextWindow! ||
        a.id.localeCompare(b.id),
    )[0];
}

/**
 * The models to try for a prompt: models whose window is too small are replaced by
 * the next larger-window model (once each), so an overflow never reaches the provider.
 */
export function contextAwareChain(
  config: LlmConfig,
  chain: ModelConfig[],
  promptTokensEstimate: number,
): ModelConfig[] {
  // the common case: every model of the chain takes the prompt (the chain has no repeats)
  if (chain.every((m) => fitsContext(m, promptTokensEstimate))) return chain;
  const out: ModelConfig[] = [];
  const used = new Set<string>();
  for (const m of chain) {
    let pick: ModelConfig | undefined = m;
    if (!fitsContext(m, promptTokensEstimate)) {
      pick = largerWindowModel(config, m, Math.ceil(promptTokensEstimate * 0.75), used);
    }
    if (pick && !used.has(pick.id)) {
      used.add(pick.id);
      out.push(pick);
    }
  }
  return out;
}
