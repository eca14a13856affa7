// Jest test sequencer (plain JS: jest loads it untransformed). DIRIGENT_TEST_ORDER=reverse
// runs the files in the opposite of jest's usual order, =shuffle in a random order printed
// with its seed (DIRIGENT_TEST_SEED=<n> repeats one): a file that needs an earlier file's
// leftovers fails. Unset: jest's own order.
/* global require, module, process */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require('@jest/test-sequencer').default;

/** A small seeded PRNG (mulberry32): the same seed gives the same order. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class OrderSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const order = process.env.DIRIGENT_TEST_ORDER;
    if (!order) return sorted;
    if (order === 'reverse') return [...sorted].reverse();
    if (order !== 'shuffle')
      throw new Error(`DIRIGENT_TEST_ORDER=${order}: use reverse or shuffle`);
    const seed = Number(process.env.DIRIGENT_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
    process.stderr.write(`test files shuffled with DIRIGENT_TEST_SEED=${seed}\n`);
    const next = random(seed);
    const out = [...tests].sort((a, b) => (a.path < b.path ? -1 : 1));
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

module.exports = OrderSequencer;
