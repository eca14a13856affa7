import type { AgentPersona } from './agent';
import { route, type RouteDecision } from './decide';
import type { RouterDecisionInputs } from '@dirigent/contracts';
import type { Disposition } from './dimensions';

/**
 * Everything a decision's scores read, as stored with it (`RouterDecisionInputs` of
 * `@dirigent/contracts`): with its seed and the disposition set named by `dispositionSet`,
 * `routeFromInputs` gives the same candidates and choice, byte for byte.
 */
export type DecisionInputs = RouterDecisionInputs;

/** The persona constraints of `agent` as an input (copies, sorted keys). */
export function agentInput(agent: AgentPersona): DecisionInputs['agent'] {
  return {
    id: agent.id,
    name: agent.name,
    ...(agent.voices?.length ? { voices: [...agent.voices] } : {}),
    ...(agent.neverVoices?.length ? { neverVoices: [...agent.neverVoices] } : {}),
    ...(agent.weights && Object.keys(agent.weights).length
      ? {
          weights: Object.fromEntries(
            Object.keys(agent.weights)
              .sort()
              .map((k) => [k, agent.weights![k]]),
          ),
        }
      : {}),
  };
}

/**
 * Routes from stored inputs: the one path both a live decision and its replay take. The
 * dispositions are taken in their canonical order (by id), so neither the order a store
 * lists them in nor the one a snapshot keeps changes the candidates or the draw.
 */
export function routeFromInputs(
  dispositions: readonly Disposition[],
  inputs: DecisionInputs,
  seed: string,
): RouteDecision {
  return route(canonicalDispositions(dispositions), {
    trigger: inputs.trigger,
    agent: inputs.agent,
    mentioned: inputs.mentioned,
    features: inputs.message,
    authorIsBot: inputs.message?.authorIsBot,
    room: inputs.room,
    memory: inputs.memory,
    budgetFraction: inputs.budgetFraction,
    hour: inputs.hour,
    bias: inputs.bias,
    interruption: inputs.interruption,
    tieBreak: inputs.tieBreak,
    seed,
    temperature: inputs.temperature,
  });
}

const KEYS: (keyof Disposition)[] = [
  'id',
  'name',
  'reasoningDepth',
  'contextStrategy',
  'voice',
  'outputShape',
  'searchPosture',
  'riskAppetite',
  'speculativeOnly',
  'selfFollowupHint',
  'weight',
];

/** The dispositions in a canonical form: sorted by id, fixed key order, no undefined. */
export function canonicalDispositions(dispositions: readonly Disposition[]): Disposition[] {
  return [...dispositions]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((d) => {
      const out: Record<string, unknown> = {};
      for (const k of KEYS) if (d[k] !== undefined) out[k] = d[k];
      return out as unknown as Disposition;
    });
}

function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * A content address of a disposition set (two 53-bit hashes of its canonical JSON, 28 hex
 * digits): the same set always has the same id, whatever the order it was listed in.
 */
export function dispositionSetId(dispositions: readonly Disposition[]): string {
  const json = JSON.stringify(canonicalDispositions(dispositions));
  return [hash53(json, 1), hash53(json, 2)].map((h) => h.toString(16).padStart(14, '0')).join('');
}
