/**
 * The Node/V8 flags the memory service runs with: its Kubernetes command, its Compose
 * command, `npm run start:memory` and the memory-scale benchmark (whose process hosts the
 * service) all name them (test/deploy/node-flags.unit.spec.ts keeps them in step).
 *
 * `--max-semi-space-size=64` (MB; Node 20's default is 16): a young generation four times as
 * large. An ingest allocates per message (the event, its validation, the batch's SQL, the
 * index entries) and holds a batch across a commit: with the default, everything alive
 * across two scavenges was promoted and the old generation's collections took about a fifth
 * of the ingest's CPU (docs/performance.md). The cost is ~50 MB more resident memory. Not
 * settable from inside the process: V8 sizes the young generation when the heap is set up.
 */
export const MEMORY_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
