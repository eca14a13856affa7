import { Kvm, type KV } from '@nats-io/kv';
import { Buckets } from '@dirigent/contracts';
import { jetStreamReplicas, type Messaging } from '@dirigent/messaging';
import type { EffectJournal } from '@dirigent/skills';

/** How long a call's write outcomes are kept: longer than any redelivery or proposal. */
const KEPT_MS = 7 * 24 * 3_600_000;

/**
 * The skills' effect journal in a NATS KV bucket (`Buckets.skillEffects`, history 1, entries
 * kept a week): durable across a SIGKILL of the router, shared by its replicas.
 */
export class NatsEffectJournal implements EffectJournal {
  private kv?: Promise<KV>;

  constructor(
    private readonly messaging: Messaging,
    private readonly bucket: string = Buckets.skillEffects,
  ) {}

  private open(): Promise<KV> {
    this.kv ??= new Kvm(this.messaging.client.js).create(this.bucket, {
      history: 1,
      ttl: KEPT_MS,
      replicas: jetStreamReplicas(),
    });
    this.kv.catch(() => (this.kv = undefined));
    return this.kv;
  }

  async get(key: string): Promise<{ value: unknown } | undefined> {
    const entry = await (await this.open()).get(key);
    if (!entry || entry.operation !== 'PUT') return undefined;
    return { value: entry.json<unknown>() };
  }

  async put(key: string, value: unknown): Promise<void> {
    await (await this.open()).put(key, JSON.stringify(value));
  }
}
