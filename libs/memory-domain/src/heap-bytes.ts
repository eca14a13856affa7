/**
 * Rough sizes of V8's objects on a 64-bit heap, for the in-process indexes to report the
 * memory they hold (a replica keeps its guilds' indexes within a budget by them). Checked
 * against the heap a real index takes (`heap-bytes.unit.spec.ts`).
 */
export const HEAP = {
  /** An element of a JS array: a small integer, a pointer or an unboxed double. */
  slot: 8,
  /** A `Map` entry with its share of the hash table. */
  mapEntry: 40,
  /** A typed array's object and its `ArrayBuffer`, beside the bytes they hold. */
  typedArray: 200,
  /** A small plain object. */
  object: 48,
};

/** A one-byte string's size (ids, terms). */
export const stringBytes = (s: string): number => 16 + ((s.length + 7) & ~7);
