/** What the reranking model is told (purpose `rerank`). */
export const RERANK_SYSTEM = `You rank passages from a Discord community's memory by how well they answer a question.
Answer with JSON only: {"order": [<passage numbers, best first>]}. Leave out passages that do not help.`;

/** A passage offered to the reranking model. */
export interface RerankPassage {
  text: string;
  author?: string;
  at?: number;
}

/**
 * The user message of a rerank request: the question, then the passages numbered from 1,
 * each on one line with its speaker and date, cut to `maxChars`.
 *
 * @example
 * rerankPrompt('When did Tom start painting?', [{ text: 'back to oils', author: 'Tom' }]);
 */
export function rerankPrompt(question: string, passages: readonly RerankPassage[], maxChars = 400) {
  const lines = passages.map((p, i) => {
    const who = p.author ? `${p.author}` : 'someone';
    const when = p.at ? ` (${new Date(p.at).toISOString().slice(0, 10)})` : '';
    const text = p.text.replace(/\s+/g, ' ').slice(0, maxChars);
    return `[${i + 1}] ${who}${when}: ${text}`;
  });
  return [`Question: ${question}`, '', 'Passages:', ...lines].join('\n');
}

/**
 * The order a reranking model gave, as 0-based indices of the `n` passages (best first,
 * each once), or null when the answer holds no usable order (no JSON, no numbers in range,
 * the offline model's pass).
 */
export function parseRerank(answer: string | null, n: number): number[] | null {
  const json = answer?.match(/\{[\s\S]*\}/)?.[0];
  let order: unknown;
  try {
    order = json ? (JSON.parse(json) as { order?: unknown }).order : undefined;
  } catch {
    order = undefined;
  }
  if (!Array.isArray(order)) return null;
  const seen = new Set<number>();
  for (const v of order) {
    const i = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
    if (Number.isInteger(i) && i >= 1 && i <= n) seen.add(i - 1);
  }
  return seen.size ? [...seen] : null;
}

/**
 * Items in the model's order: those it named first (best first), then the ones it left
 * out, in the order they came (the cheap ranking's).
 *
 * @example
 * reorder(['a', 'b', 'c'], [2]); // ['c', 'a', 'b']
 */
export function reorder<T>(items: readonly T[], order: readonly number[]): T[] {
  const named = new Set(order);
  return [...order.map((i) => items[i]), ...items.filter((_, i) => !named.has(i))];
}
