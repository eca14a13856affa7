import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { filler, NAMES, prng } from '../../../bench/memory/corpus';
import { hashedIndexFeatures } from './embedder';
import { FeatureIndex } from './feature-index';
import { LexicalIndex } from './lexical';
import { VectorIndex } from './vector-index';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A guild's archive as the memory service indexes it (words, vectors, features). */
function guildIndex(messages: number, dimensions: number) {
  const rand = prng(7);
  const words = new LexicalIndex();
  const vectors = new VectorIndex(dimensions, { perVector: 0, fixed16: true });
  const features = new FeatureIndex();
  const base = 1_180_000_000_000_000_000n;
  // Chat's long tail: a rare word (a name, a typo, a link's slug) in most lines.
  const rare = () => `w${Math.floor(rand() ** 3 * 200_000).toString(36)}`;
  for (let i = 0; i < messages; i++) {
    const text = `${filler(rand)} ${rare()} ${rand() < 0.3 ? rare() : ''}`;
    words.add({
      id: String(base + BigInt(i) * 4_194_304n),
      text,
      at: 1_700_000_000_000 + i * 1_000,
      channelId: String(base + BigInt(i % 40)),
      authorId: String(base + BigInt(i % 300)),
      authorName: NAMES[i % 300],
    });
    const f = hashedIndexFeatures(text, dimensions);
    features.add(vectors.add(f.vector), f.keys, f.weights);
  }
  return { words, vectors, features };
}

const heap = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/**
 * The indexes' own estimate of their heap (`bytes()`, what a replica's memory budget
 * counts) against the heap they really take: within a third either way, so that a budget
 * in megabytes holds. `DIRIGENT_HEAP_MESSAGES=100000` prints a 100k-message guild's figure.
 */
describe('heap estimates of a guild index', () => {
  const messages = Number(process.env.DIRIGENT_HEAP_MESSAGES || 8_000);

  it('match the heap a guild index takes, words, vectors and features', () => {
    // What dropping the index frees, both sides after a full collection, on the second of
    // two builds: a shared jest worker may free other spec files' leftovers during the
    // first (a heap taken before building would count them too).
    let parts = { words: 0, vectors: 0, features: 0 };
    let taken = 0;
    for (let round = 0; round < 2; round++) {
      let g: ReturnType<typeof guildIndex> | null = guildIndex(messages, 512);
      parts = { words: g.words.bytes(), vectors: g.vectors.bytes(), features: g.features.bytes() };
      const withIndex = heap();
      g = null;
      taken = withIndex - heap();
    }
    const estimate = parts.words + parts.vectors + parts.features;
    const per100k = (b: number) => `${(((b / messages) * 100_000) / 1024 / 1024).toFixed(1)} MB`;
    process.stdout.write(
      `${messages} messages: heap ${per100k(taken)} per 100k messages, estimated ${per100k(estimate)} ` +
        `(words ${per100k(parts.words)}, vectors ${per100k(parts.vectors)}, features ${per100k(parts.features)})\n`,
    );
    expect(estimate / taken).toBeGreaterThan(0.67);
    expect(estimate / taken).toBeLessThan(1.5);
  });
});
