import type {
  FollowupBias,
  OutputShape,
  ReasoningDepth,
  RiskAppetite,
  SearchPosture,
  Voice,
} from '@dirigent/contracts';

// The values of the disposition matrix are the wire's (`@dirigent/contracts`); the deciders
// read them under their own names.
export {
  REASONING_DEPTHS,
  VOICES,
  OUTPUT_SHAPES,
  SEARCH_POSTURES,
  RISK_APPETITES,
  FOLLOWUP_BIASES,
  ROUTER_TRIGGERS as TRIGGERS,
} from '@dirigent/contracts';
export type {
  ReasoningDepth,
  Voice,
  OutputShape,
  SearchPosture,
  RiskAppetite,
  FollowupBias,
  RouterTrigger as Trigger,
} from '@dirigent/contracts';

/** The five research personas of the fan-out. */
export const RESEARCH_PERSONAS = [
  'memory-archeologist',
  'participant-profiler',
  'topic-researcher',
  'comedian',
  'contrarian',
] as const;
export type ResearchPersona = (typeof RESEARCH_PERSONAS)[number];

export interface SelfFollowupHint {
  /** 0..1: base chance of scheduling a follow-up. */
  probability: number;
  bias: FollowupBias;
  /** `[min, max]` delay in ms, sampled uniformly. */
  windowMs: [number, number];
}

/**
 * A point in the behaviour space: the seventh dimension is the self-follow-up hint.
 * `contextStrategy` is one of memory's lenses (validated at the contract).
 */
export interface Disposition {
  id: string;
  name: string;
  reasoningDepth: ReasoningDepth;
  contextStrategy: string;
  voice: Voice;
  outputShape: OutputShape;
  searchPosture: SearchPosture;
  riskAppetite: RiskAppetite;
  speculativeOnly?: boolean;
  selfFollowupHint?: SelfFollowupHint;
  /** ≥ 0, default 1; 0 means never chosen. */
  weight?: number;
}

/** The six dimensions a decision reports (the hint rides on the follow-up). */
export interface Dimensions {
  reasoningDepth: ReasoningDepth;
  contextStrategy: string;
  voice: Voice;
  outputShape: OutputShape;
  searchPosture: SearchPosture;
  riskAppetite: RiskAppetite;
}

export function dimensionsOf(d: Disposition): Dimensions {
  return {
    reasoningDepth: d.reasoningDepth,
    contextStrategy: d.contextStrategy,
    voice: d.voice,
    outputShape: d.outputShape,
    searchPosture: d.searchPosture,
    riskAppetite: d.riskAppetite,
  };
}

/** Shapes that never call a model. */
export const isModelFree = (d: Pick<Disposition, 'outputShape'>): boolean =>
  d.outputShape === 'silent' || d.outputShape === 'react-only';
