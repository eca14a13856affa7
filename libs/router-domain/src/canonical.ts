import type { Disposition } from './dimensions';

const MIN = 60_000;

/**
 * The ten canonical dispositions as the code knows them. The migrations seed them into
 * `dispositions`, each with its own copy of the rows (the router migration,
 * libs/persistence/src/migrations/Migration20261123160000_router.ts, through
 * `insertDispositionsSql`); the router reads that table, where `Subjects.admin.disposition*`
 * edits them. One added or changed here also needs a migration that writes it;
 * libs/persistence/src/migrations/seed-dispositions.unit.spec.ts fails until it does.
 */
export const CANONICAL_DISPOSITIONS: readonly Disposition[] = [
  {
    id: 'silent-listen',
    name: 'Silent listen',
    reasoningDepth: 'low',
    contextStrategy: 'none',
    voice: 'indifferent',
    outputShape: 'silent',
    searchPosture: 'none',
    riskAppetite: 'safe',
  },
  {
    id: 'vibing',
    name: 'Vibing',
    reasoningDepth: 'low',
    contextStrategy: 'narrow-live',
    voice: 'present-reaction',
    outputShape: 'react-only',
    searchPosture: 'none',
    riskAppetite: 'safe',
    selfFollowupHint: { probability: 0.05, bias: 'go-deeper', windowMs: [MIN / 2, 2 * MIN] },
  },
  {
    id: 'quick-react',
    name: 'Quick react',
    reasoningDepth: 'low',
    contextStrategy: 'live',
    voice: 'playful',
    outputShape: 'single-line',
    searchPosture: 'none',
    riskAppetite: 'safe',
    selfFollowupHint: { probability: 0.1, bias: 'go-deeper', windowMs: [MIN / 2, 2 * MIN] },
  },
  {
    id: 'roast-back',
    name: 'Roast back',
    reasoningDepth: 'medium',
    contextStrategy: 'archive-person-deep',
    voice: 'sharp',
    outputShape: 'single-line',
    searchPosture: 'person-deep',
    riskAppetite: 'spicy',
    // The roast found something in the person's history: coming back to it later, after
    // the talk has moved on, is the delayed callback ("earlier you said …").
    selfFollowupHint: { probability: 0.15, bias: 'callback-later', windowMs: [20 * MIN, 60 * MIN] },
  },
  {
    id: 'factual-recall',
    name: 'Factual recall',
    reasoningDepth: 'low',
    contextStrategy: 'live+lore',
    voice: 'deadpan',
    outputShape: 'single-line',
    searchPosture: 'none',
    riskAppetite: 'safe',
  },
  {
    id: 'callback-from-memory',
    name: 'Callback from memory',
    reasoningDepth: 'high',
    contextStrategy: 'callback-primed',
    voice: 'nostalgic',
    outputShape: 'multi-line',
    searchPosture: 'callback-hunt',
    riskAppetite: 'safe',
  },
  {
    id: 'settle-debate',
    name: 'Settle debate',
    reasoningDepth: 'high',
    contextStrategy: 'contrasting',
    voice: 'sincere',
    outputShape: 'burst',
    searchPosture: 'contradiction-hunt',
    riskAppetite: 'safe',
    selfFollowupHint: { probability: 0.3, bias: 'add-nuance', windowMs: [MIN, 5 * MIN] },
  },
  {
    id: 'contrarian-take',
    name: 'Contrarian take',
    reasoningDepth: 'high',
    contextStrategy: 'cross-channel-similar',
    voice: 'contrarian',
    outputShape: 'multi-line',
    searchPosture: 'contradiction-hunt',
    riskAppetite: 'spicy',
  },
  {
    id: 'late-night-musing',
    name: 'Late-night musing',
    reasoningDepth: 'high',
    contextStrategy: 'serendipity',
    voice: 'observational',
    outputShape: 'burst',
    searchPosture: 'broad-scan',
    riskAppetite: 'safe',
    speculativeOnly: true,
    selfFollowupHint: { probability: 0.4, bias: 'add-nuance', windowMs: [5 * MIN, 20 * MIN] },
  },
  {
    id: 'observation-drop',
    name: 'Observation drop',
    reasoningDepth: 'medium',
    contextStrategy: 'bot-history',
    voice: 'observational',
    outputShape: 'single-line',
    searchPosture: 'broad-scan',
    riskAppetite: 'safe',
    speculativeOnly: true,
  },
];
