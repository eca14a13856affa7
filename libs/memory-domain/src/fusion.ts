/** One ranked result list from one retriever (full text, trigram, vector), best first. */
export type RankedList = readonly { key: string; at: number }[];

export interface FusionOptions {
  /** The RRF constant: larger flattens the advantage of a first place. */
  k?: number;
  /** Weight of each list, by position; 1 when absent. */
  weights?: readonly number[];
  now: number;
  /** Half-life of the recency prior in milliseconds; 0 turns it off. */
  recencyHalfLifeMs?: number;
  /** How much the recency prior can add, as a fraction of a first place's RRF score. */
  recencyWeight?: number;
}

export interface Fused {
  key: string;
  score: number;
}

/**
 * Reciprocal rank fusion (Cormack et al. 2009) with a recency prior: each list gives
 * `weight / (k + rank)`, and an item of age `a` gains `recencyWeight / (k + 1) · 2^(-a/halfLife)`,
 * so recency breaks near-ties but never lifts an item found by no retriever.
 *
 * @example
 * reciprocalRankFusion([[{ key: 'a', at }], [{ key: 'b', at }, { key: 'a', at }]], { now })
 */
export function reciprocalRankFusion(lists: readonly RankedList[], opts: FusionOptions): Fused[] {
  const k = opts.k ?? 60;
  const halfLife = opts.recencyHalfLifeMs ?? 30 * 86_400_000;
  const recencyWeight = opts.recencyWeight ?? 0.3;
  const scores = new Map<string, { score: number; at: number }>();
  lists.forEach((list, li) => {
    const w = opts.weights?.[li] ?? 1;
    const seen = new Set<string>();
    list.forEach((item, rank) => {
      if (seen.has(item.key)) return;
      seen.add(item.key);
      const entry = scores.get(item.key) ?? { score: 0, at: item.at };
      entry.score += w / (k + rank + 1);
      scores.set(item.key, entry);
    });
  });
  const out: Fused[] = [];
  for (const [key, { score, at }] of scores) {
    const age = Math.max(0, opts.now - at);
    const prior = halfLife > 0 ? (recencyWeight / (k + 1)) * Math.pow(2, -age / halfLife) : 0;
    out.push({ key, score: score + prior });
  }
  return out.sort((a, b) => b.score - a.score || a.key.localeCompare(b.key));
}
