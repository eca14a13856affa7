/**
 * The Node/V8 flags the turn coordinator runs with: its Kubernetes command, its Compose
 * command, `npm run start:turn-coordinator` and the benchmark's coordinator process all name
 * them (test/deploy/node-flags.unit.spec.ts keeps them in step).
 *
 * `--max-semi-space-size=64` (MB; Node 20's default is 16): a young generation four times as
 * large. With the default, a busy coordinator scavenged every 50 ms while it created channels
 * and every 2–4 s while it answered 1,000 checks a second; everything alive across two
 * scavenges (requests in flight, a flush to Postgres) was promoted, so the old generation
 * filled with objects that died soon after, and the mark-compact that cleared them paused the
 * event loop for 6–25 ms (plus incremental-marking steps of 5–10 ms): the slowest 1% of
 * check-turn answers at 1,000/s were those pauses. With 64 MB it scavenges every 10–15 s at
 * that rate, promotes a fraction, and the old generation stays near what is live; the cost is
 * ~50 MB more resident memory (docs/performance.md, "The coordinator's bundle and young generation").
 * Not settable from inside the process: V8 sizes the young generation when the heap is set up.
 */
export const COORDINATOR_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
