/** A guild's index as a replica holds it, for {@link overBudget}. */
export interface HeldIndex {
  id: string;
  /** Its estimated heap. */
  bytes: number;
  /** When it was last used (any increasing count). */
  usedAt: number;
}

/**
 * The indexes to drop so that those left fit in `budget` bytes: the least recently used
 * first, never `keep` (the one in use), so that a single index larger than the budget
 * stays, alone. None when they fit, or when the budget is 0 (no limit).
 *
 * @example
 * overBudget([{ id: 'a', bytes: 60, usedAt: 1 }, { id: 'b', bytes: 60, usedAt: 2 }], 100, 'b'); // ['a']
 */
export function overBudget(held: readonly HeldIndex[], budget: number, keep: string): string[] {
  if (budget <= 0) return [];
  let total = held.reduce((sum, h) => sum + h.bytes, 0);
  if (total <= budget) return [];
  const out: string[] = [];
  for (const h of [...held].sort((a, b) => a.usedAt - b.usedAt)) {
    if (total <= budget) break;
    if (h.id === keep) continue;
    total -= h.bytes;
    out.push(h.id);
  }
  return out;
}
