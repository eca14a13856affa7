/**
 * The anchor: plain Okapi BM25 (k1 1.2, b 0.75) over each message prefixed with its
 * speaker's name, lower-cased words, English stop words out, no stemming, no other signal —
 * what a keyword index gives out of the box.
 */
const STOP = new Set(
  (
    'a an and are as at be but by for from has have he her his i if in into is it its me my of on ' +
    'or our she so that the their them they this to was we were what when where which who why ' +
    'will with you your did do does how'
  ).split(' '),
);

const tokens = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !STOP.has(w));

export class OkapiBm25 {
  private readonly docs: { id: string; tf: Map<string, number>; len: number }[] = [];
  private readonly df = new Map<string, number>();
  private avg = 0;

  constructor(docs: { id: string; speaker: string; text: string }[]) {
    for (const d of docs) {
      const ts = tokens(`${d.speaker}: ${d.text}`);
      const tf = new Map<string, number>();
      for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      this.docs.push({ id: d.id, tf, len: ts.length });
    }
    this.avg = this.docs.reduce((s, d) => s + d.len, 0) / (this.docs.length || 1);
  }

  /** The ids of the best `k` messages for a query. */
  search(query: string, k: number): string[] {
    const n = this.docs.length;
    const q = [...new Set(tokens(query))].map((t) => {
      const df = this.df.get(t) ?? 0;
      return { t, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)) };
    });
    const scored: { id: string; s: number }[] = [];
    for (const d of this.docs) {
      let s = 0;
      for (const { t, idf } of q) {
        const tf = d.tf.get(t);
        if (tf) s += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * d.len) / this.avg));
      }
      if (s > 0) scored.push({ id: d.id, s });
    }
    return scored
      .sort((a, b) => b.s - a.s)
      .slice(0, k)
      .map((x) => x.id);
  }
}

/** Recall@k: the share of questions with at least one evidence id in the first k results. */
export function recallAt(
  results: readonly (readonly string[])[],
  evidence: readonly (readonly string[])[],
  k: number,
): number {
  let found = 0;
  results.forEach((ids, i) => {
    if (ids.slice(0, k).some((id) => evidence[i].includes(id))) found++;
  });
  return results.length ? found / results.length : 0;
}
