/**
 * `@dirigent/memory-domain` — the pure parts of Dirigent's guild-wide memory: the context
 * lenses and their assembly within a token budget, reciprocal rank fusion, the offline
 * hashed embedder and an in-process vector index, moment signals, dossier consolidation, fact validity windows and epochs.
 * No Nest, no I/O: lenses read through the `MemoryReader` port; time and seeds come in.
 */
export * from './types';
export * from './tokens';
export * from './embedder';
export * from './vector-index';
export * from './feature-index';
export * from './fusion';
export * from './facts';
export * from './moments';
export * from './moment-signals';
export * from './phrases';
export * from './dossier';
export * from './epochs';
export * from './epoch-summary';
export * from './assemble';
export * from './audience';
export * from './lenses';
export * from './lexical';
export * from './rerank';
export * from './forgotten';
export * from './heap-bytes';
export * from './index-budget';
