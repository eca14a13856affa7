import { Kvm, type KV } from '@nats-io/kv';
import { Buckets } from '@dirigent/contracts';
import { jetStreamReplicas, type Messaging } from '@dirigent/messaging';
import { HeldDecisions, type HeldDecision } from '../application/ports';

/** How long a held decision waits for its post: longer than any proposal lives. */
const KEPT_MS = 30 * 24 * 3_600_000;

/**
 * Held decisions in a NATS KV bucket (`Buckets.stewardHeldDecisions`), one entry per
 * `<messageId>.<userId>.<approve|reject>`: durable across a SIGKILL, shared by replicas.
 */
export class NatsHeldDecisions extends HeldDecisions {
  private kv?: Promise<KV>;

  constructor(
    private readonly messaging: Messaging,
    private readonly bucket: string = Buckets.stewardHeldDecisions,
  ) {
    super();
  }

  private open(): Promise<KV> {
    this.kv ??= new Kvm(this.messaging.client.js).create(this.bucket, {
      history: 1,
      ttl: KEPT_MS,
      replicas: jetStreamReplicas(),
    });
    this.kv.catch(() => (this.kv = undefined));
    return this.kv;
  }

  async hold(d: HeldDecision): Promise<void> {
    const r = d.reaction;
    const kind = r.emoji === '✅' ? 'approve' : 'reject';
    await (await this.open()).put(`${r.messageId}.${r.userId}.${kind}`, JSON.stringify(d));
  }

  async list(messageId: string): Promise<HeldDecision[]> {
    const kv = await this.open();
    const keys: string[] = [];
    for await (const k of await kv.keys(`${messageId}.>`)) keys.push(k);
    const held: HeldDecision[] = [];
    for (const k of keys) {
      const e = await kv.get(k);
      if (e?.operation === 'PUT') held.push(e.json<HeldDecision>());
    }
    return held.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  }

  async release(messageId: string, held: HeldDecision[]): Promise<void> {
    const kv = await this.open();
    for (const d of held) {
      const kind = d.reaction.emoji === '✅' ? 'approve' : 'reject';
      await kv.delete(`${messageId}.${d.reaction.userId}.${kind}`);
    }
  }
}
