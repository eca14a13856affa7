import { hashedEmbedding, hashedEmbeddingF32 } from './embedder';
import { VectorIndex } from './vector-index';

const WORDS =
  'deploy build release kubernetes memory cluster sourdough starter photography garage pottery clay calligraphy astronomy observatory guitar chess climbing kayak bread coffee tea rust golang typescript'.split(
    ' ',
  );

/** Short sentences over WORDS from a seeded linear congruential generator. */
function sentences(seed: number, count: number): string[] {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, () =>
    Array.from(
      { length: 3 + Math.floor(next() * 5) },
      () => WORDS[Math.floor(next() * WORDS.length)],
    ).join(' '),
  );
}

describe('VectorIndex', () => {
  it('scores unit vectors kept in 16-bit fixed point as the 32-bit ones, in half the memory', () => {
    const full = new VectorIndex(512, { perVector: 0 });
    const fixed = new VectorIndex(512, { perVector: 0, fixed16: true });
    for (const text of sentences(3, 2048)) {
      full.add(hashedEmbeddingF32(text, 512));
      fixed.add(hashedEmbeddingF32(text, 512));
    }
    let worst = 0;
    for (const text of sentences(4, 40)) {
      const q = hashedEmbeddingF32(text, 512);
      const a = full.exact(q, 10);
      const b = fixed.exact(q, 10);
      for (let i = 0; i < a.length; i++) {
        worst = Math.max(worst, Math.abs(a[i].score - b[i].score));
        expect(Math.abs(fixed.score(q, a[i].slot) - a[i].score)).toBeLessThan(1e-4);
      }
    }
    expect(worst).toBeLessThan(1e-4);
    expect(worst).toBeGreaterThan(0); // they are kept apart, not shared
    expect(fixed.bytes()).toBeLessThan(full.bytes() * 0.55);
  });

  it('finds what scoring every vector finds, for the hashed embedder (past the exhaustive size)', () => {
    const index = new VectorIndex(512, { exactBelow: 100, candidates: 200 });
    for (const text of sentences(1, 3000)) index.add(hashedEmbedding(text));
    let found = 0;
    let total = 0;
    for (const text of sentences(2, 30)) {
      const v = hashedEmbedding(text);
      const exact = index.exact(v, 10);
      // By score, not slot: identical sentences tie.
      const kth = exact[exact.length - 1].score - 1e-6;
      total += exact.length;
      found += index.search(v, 10).filter((h) => h.score >= kth).length;
    }
    expect(found / total).toBeGreaterThanOrEqual(0.95);
  });

  it('scores a sparse query exactly as the sum over every coordinate', () => {
    const index = new VectorIndex(512, { exactBelow: 0 });
    const texts = sentences(3, 200);
    const stored = texts.map((t) => Float32Array.from(hashedEmbedding(t)));
    for (const v of stored) index.add(v);
    for (const text of sentences(4, 20)) {
      const q = Float32Array.from(hashedEmbedding(text));
      for (const h of index.exact(q, 20)) {
        let dense = 0;
        for (let d = 0; d < 512; d++) dense += stored[h.slot][d] * q[d];
        expect(h.score).toBe(dense);
      }
    }
  });

  it('ranks by dot product, best first, and scores exactly', () => {
    const index = new VectorIndex(512, { exactBelow: 0 });
    const a = index.add(hashedEmbedding('the kubernetes cluster ran out of memory'));
    index.add(hashedEmbedding('sourdough starter needs feeding'));
    const c = index.add(hashedEmbedding('kubernetes memory limits again'));
    const q = hashedEmbedding('kubernetes memory');
    const hits = index.search(q, 2);
    expect(hits.map((h) => h.slot).sort()).toEqual([a, c].sort());
    expect(hits[0].score).toBeGreaterThanOrEqual(hits[1].score);
    expect(hits[0].score).toBeCloseTo(index.score(q, hits[0].slot), 6);
  });

  it('leaves out removed vectors and those the filter refuses', () => {
    const index = new VectorIndex(512, { exactBelow: 0 });
    const a = index.add(hashedEmbedding('kubernetes memory'));
    const b = index.add(hashedEmbedding('kubernetes memory again'));
    const c = index.add(hashedEmbedding('memory of kubernetes'));
    const q = hashedEmbedding('kubernetes memory');
    index.remove(a);
    expect(index.live).toBe(2);
    expect(index.search(q, 5).map((h) => h.slot)).not.toContain(a);
    expect(index.search(q, 5, (s) => s !== b).map((h) => h.slot)).toEqual([c]);
    expect(index.exact(q, 5).map((h) => h.slot)).not.toContain(a);
  });

  it('refuses vectors of another dimension and answers an odd query with nothing', () => {
    const index = new VectorIndex(4);
    expect(() => index.add([1, 0, 0])).toThrow(/3 dimensions/);
    expect(() => new VectorIndex(0)).toThrow(/positive integer/);
    index.add([1, 0, 0, 0]);
    expect(index.search([1, 0], 3)).toEqual([]);
    expect(index.search([1, 0, 0, 0], 0)).toEqual([]);
  });
});
