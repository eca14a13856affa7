/**
 * The values of the disposition matrix and the router's triggers (the disposition
 * router in docs/design.md): one spelling for the wire and the deciders (`@dirigent/router-domain`
 * reads them from here). Stored decisions and dispositions carry these spellings: changing one
 * is a wire change.
 */
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

export const ROUTER_TRIGGERS = [
  'reactive',
  'speculative',
  'self-followup',
  'interruption',
] as const;
export type RouterTrigger = (typeof ROUTER_TRIGGERS)[number];
