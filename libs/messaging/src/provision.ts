import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { StreamSpec } from '@dirigent/contracts';

const STREAM_NOT_FOUND = 10059;
const CONSUMER_NOT_FOUND = 10014;

function isApiError(e: unknown, code: number): boolean {
  return e instanceof JetStreamApiError && e.code === code;
}

/**
 * How many JetStream servers keep each stream and KV bucket: `DIRIGENT_JETSTREAM_REPLICAS`
 * (1 to 5, default 1). A clustered NATS (deploy/k8s runs three) wants 3, or a stream is
 * unavailable while the one server holding it is down.
 */
export function jetStreamReplicas(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DIRIGENT_JETSTREAM_REPLICAS;
  if (raw === undefined || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 5) {
    throw new Error(`DIRIGENT_JETSTREAM_REPLICAS must be an integer from 1 to 5, got "${raw}"`);
  }
  return n;
}

/** Creates the stream, or updates it to the spec when it exists. Safe to call on every start. */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<void> {
  const config = {
    name: spec.name,
    subjects: spec.subjects,
    num_replicas: jetStreamReplicas(),
    storage: StorageType.File,
    retention: spec.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
    duplicate_window: nanos(spec.duplicateWindowMs),
    max_age: spec.maxAgeMs ? nanos(spec.maxAgeMs) : 0,
  };
  const { name: _name, storage: _storage, retention: _retention, ...mutable } = config;
  try {
    const { config: current } = await jsm.streams.info(spec.name);
    // A start that changes nothing writes nothing (an update is a stream config write).
    if (sameSettings(current as unknown as Record<string, unknown>, mutable)) return;
  } catch (e) {
    if (!isApiError(e, STREAM_NOT_FOUND)) throw e;
    try {
      await jsm.streams.add(config);
      return;
    } catch (addErr) {
      // Another process won the race to create it; fall through to the update.
      if (!(addErr instanceof JetStreamApiError)) throw addErr;
    }
  }
  await jsm.streams.update(spec.name, mutable);
}

/** Whether `current` (a stream or consumer config from the server) already has `wanted`. */
export function sameSettings(current: Record<string, unknown>, wanted: object): boolean {
  return Object.entries(wanted).every(([k, v]) => JSON.stringify(current[k]) === JSON.stringify(v));
}

export interface DurableSpec {
  stream: string;
  durable: string;
  /** One filter subject: NATS 2.9 has no multi-filter consumers. */
  filterSubject?: string;
  /** Deliveries before the message is dead-lettered. */
  maxDeliver: number;
  ackWaitMs: number;
  /** 1 keeps strict order (projections, aggregates); more allows parallel handling. */
  maxAckPending?: number;
  /** Where a new durable starts: the whole stream (default) or only messages from now on. */
  deliverPolicy?: 'all' | 'new';
}

/** Creates the durable pull consumer, or updates its mutable settings. */
export async function ensureDurable(jsm: JetStreamManager, spec: DurableSpec): Promise<void> {
  const mutable = {
    ack_wait: nanos(spec.ackWaitMs),
    // The messaging layer terms and dead-letters after maxDeliver itself; the server's
    // limit is one above so it never silently drops a message we have not recorded.
    max_deliver: spec.maxDeliver + 1,
    max_ack_pending: spec.maxAckPending ?? 1000,
    ...(spec.filterSubject ? { filter_subject: spec.filterSubject } : {}),
  };
  try {
    const { config: current } = await jsm.consumers.info(spec.stream, spec.durable);
    if (sameSettings(current as unknown as Record<string, unknown>, mutable)) return;
    await jsm.consumers.update(spec.stream, spec.durable, mutable);
  } catch (e) {
    if (!isApiError(e, CONSUMER_NOT_FOUND)) throw e;
    await jsm.consumers.add(spec.stream, {
      durable_name: spec.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: spec.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
      ...mutable,
    });
  }
}
