/** The values of the disposition matrix (dit-mvp-plan.md, "The disposition router"). */
export const REASONING_DEPTHS = ['low', 'medium', 'high'] as const;
export type ReasoningDepth = (typeof REASONING_DEPTHS)[number];

export const VOICES = [
  'playful',
  'sharp',
  'sincere',
  'contrarian',
  'nostalgic',
  'deadpan',
  'encouraging',
  'indifferent',
  'present-reaction',
  'observational',
  'fact-drop',
] as const;
export type Voice = (typeof VOICES)[number];

export const OUTPUT_SHAPES = [
  'silent',
  'react-only',
  'single-line',
  'multi-line',
  'burst',
] as const;
export type OutputShape = (typeof OUTPUT_SHAPES)[number];

export const SEARCH_POSTURES = [
  'none',
  'broad-scan',
  'person-deep',
  'callback-hunt',
  'contradiction-hunt',
  'setup-payoff',
] as const;
export type SearchPosture = (typeof SEARCH_POSTURES)[number];

export const RISK_APPETITES = ['safe', 'spicy'] as const;
export type RiskAppetite = (typeof RISK_APPETITES)[number];

export const FOLLOWUP_BIASES = [
  'go-deeper',
  'self-correct',
  'contrarian-self',
  'add-nuance',
  'callback-later',
] as const;
export type FollowupBias = (typeof FOLLOWUP_BIASES)[number];

export const TRIGGERS = ['reactive', 'speculative', 'self-followup', 'interruption'] as const;
export type Trigger = (typeof TRIGGERS)[number];

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
