import type { HashedIndexFeatures, SearchLayer } from '@dirigent/memory-domain';

/** Where item vectors live and how the nearest are found (real[] in process, or pgvector). */
export interface VectorStore {
  readonly kind: 'array' | 'pgvector';
  upsert(
    guildId: string,
    model: string,
    items: { layer: SearchLayer; refId: string; vector: number[] }[],
  ): Promise<void>;
  remove(guildId: string, layer: SearchLayer, refIds: string[]): Promise<void>;
  nearest(
    guildId: string,
    model: string,
    vector: number[],
    q: {
      layers: readonly SearchLayer[];
      k: number;
      /** How long to wait for vectors not loaded yet before answering without them. */
      firstLoadWaitMs?: number;
    },
  ): Promise<{ layer: SearchLayer; refId: string; score: number }[]>;
}
export const VECTOR_STORE = Symbol('VECTOR_STORE');

/** Text to vectors (through the gateway's `embed` purpose, or the local hashed embedder). */
export interface Embedder {
  embed(guildId: string, texts: string[]): Promise<{ model: string; vectors: number[][] }>;
  /**
   * Set when a vector is a pure function of its text computed in this process (the offline
   * hashed embedder): the archive's vectors are then derived where they are searched, from
   * the messages the archive index holds, and never stored.
   */
  readonly derived?: {
    model: string;
    vector(text: string): Float32Array;
    /** The vector and the features it is filed under (`hashedIndexFeatures`). */
    features(text: string): HashedIndexFeatures;
  };
}
export const EMBEDDER = Symbol('EMBEDDER');

/**
 * The model behind `extract`, `epoch-summarize`, `memory` and `rerank`; null when it gave
 * nothing usable (or did not answer within `timeoutMs`, by default the gateway timeout).
 */
export interface Summarizer {
  complete(
    guildId: string,
    purpose: ModelPurpose,
    system: string,
    user: string,
    timeoutMs?: number,
  ): Promise<string | null>;
}
export type ModelPurpose = 'extract' | 'epoch-summarize' | 'memory' | 'rerank';
export const SUMMARIZER = Symbol('SUMMARIZER');
