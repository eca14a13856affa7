import fc from 'fast-check';
import {
  contentWords,
  cosine,
  hashedEmbedding,
  hashedEmbeddingF32,
  HASHED_EMBEDDER_DIMENSIONS,
  stem,
} from './embedder';

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('hashed embedder', () => {
  it('gives the same unit vector of fixed dimension for the same text', () => {
    const a = hashedEmbedding('Alice adopted a beagle named Biscuit');
    expect(a).toHaveLength(HASHED_EMBEDDER_DIMENSIONS);
    expect(norm(a)).toBeCloseTo(1, 5);
    expect(hashedEmbedding('Alice adopted a beagle named Biscuit')).toEqual(a);
  });

  it('keeps the vectors stored by earlier versions (the same coordinates and values)', () => {
    const v = hashedEmbedding('Alice adopted a beagle named Biscuit');
    const nonZero = v.flatMap((x, i) => (x ? [[i, Math.fround(x)]] : []));
    expect(nonZero).toHaveLength(55);
    expect(nonZero.slice(0, 4)).toEqual([
      [2, 0.0919540673494339],
      [9, -0.10617941617965698],
      [11, -0.07508018612861633],
      [13, -0.0919540673494339],
    ]);
  });

  it('gives as 4-byte floats the same values as the vector rounded', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (text) => {
        expect(Array.from(hashedEmbeddingF32(text))).toEqual(
          Array.from(Float32Array.from(hashedEmbedding(text))),
        );
      }),
    );
  });

  it('is any text to a unit vector, or the zero vector when nothing is left', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const n = norm(hashedEmbedding(text));
        expect(n === 0 || Math.abs(n - 1) < 1e-5).toBe(true);
        if (contentWords(text).length > 0) expect(n).toBeGreaterThan(0);
      }),
    );
  });

  it('scores word-form variants above unrelated text (moved / moving, deploy / deployment)', () => {
    const q = hashedEmbedding('who is moving to Berlin');
    const fact = hashedEmbedding('I moved to berlin last spring');
    const other = hashedEmbedding('the pasta recipe needs more garlic');
    expect(cosine(q, fact)).toBeGreaterThan(cosine(q, other) + 0.2);
    const d = hashedEmbedding('deployment pipeline broke');
    expect(cosine(hashedEmbedding('deploying pipelines'), d)).toBeGreaterThan(0.3);
  });

  it('ignores case, accents and stop words', () => {
    expect(
      cosine(hashedEmbedding('Café in ZÜRICH'), hashedEmbedding('the cafe in zurich')),
    ).toBeCloseTo(1, 5);
  });
});

describe('stem', () => {
  it.each([
    ['moving', 'mov'],
    ['moved', 'mov'],
    ['moves', 'mov'],
    ['running', 'run'],
    ['deployment', 'deploy'],
    ['cat', 'cat'],
  ])('%s → %s', (w, s) => expect(stem(w)).toBe(s));
});

describe('cosine', () => {
  it('is symmetric and within [-1, 1]', () => {
    const vec = fc.array(fc.float({ min: -10, max: 10, noNaN: true }), {
      minLength: 4,
      maxLength: 4,
    });
    fc.assert(
      fc.property(vec, vec, (a, b) => {
        const c = cosine(a, b);
        expect(c).toBeCloseTo(cosine(b, a), 9);
        expect(Math.abs(c)).toBeLessThanOrEqual(1 + 1e-9);
      }),
    );
  });
  it('is 0 for vectors of different lengths or zero vectors', () => {
    expect(cosine([1, 0], [1, 0, 0])).toBe(0);
    expect(cosine([0, 0], [1, 0])).toBe(0);
  });
});
