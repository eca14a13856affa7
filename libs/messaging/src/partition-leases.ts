import { randomUUID } from 'node:crypto';
import { StorageType } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { Messaging } from './messaging';
import { jetStreamReplicas } from './provision';

/** Serves partitions: what a replica starts when it wins a lease and stops when it loses one. */
export interface PartitionOwner {
  /** Starts serving partition `k`; resolves once it is served. */
  acquire(k: number): Promise<void>;
  /**
   * Stops serving partition `k`; resolves once nothing of it runs any more. `lost`: the
   * lease is gone (another replica may hold it), so nothing more of it may be handled;
   * otherwise what was already received is handled first, under the still-held lease.
   */
  release(k: number, lost?: boolean): Promise<void>;
}

export interface PartitionLeaseOptions {
  partitions: number;
  /** Names one process at a time: a replica restarted under its id takes its leases back. */
  replicaId: string;
  /** How long a lease lives without a renewal (the bucket's TTL). */
  leaseMs: number;
  /** The KV bucket of these leases and their replicas' membership (one per leased set). */
  bucket: string;
  /** The setting that fixes `partitions`, named when replicas disagree on it. */
  setting: string;
  log: {
    log(o: object): void;
    warn(o: object): void;
    error(o: object): void;
  };
}

interface LeaseValue {
  replica: string;
  incarnation: string;
  partitions: number;
}

interface Held {
  revision: number;
  /** Being handed over: still renewed until its consumers have stopped. */
  releasing?: boolean;
  /** When the last successful renewal (or the acquisition) was sent. */
  renewedAt: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const isConflict = (e: unknown) => /wrong last sequence/i.test((e as Error)?.message ?? '');

/**
 * Partition ownership (the coordinator's channel partitions, the ingest's gateway shards)
 * leased in a NATS KV bucket whose entries expire after `leaseMs` (the
 * server's clock decides expiry, not the replicas'). Each replica announces itself every
 * `leaseMs / 6` (`m.<replica>`; live while that revision keeps changing), aims at
 * `ceil(partitions / live replicas)` partitions and holds each with revision-checked
 * renewals:
 *
 * - a free partition (no entry, or the lease expired) is taken with a create, which only one
 *   replica can win;
 * - a renewal is an update at the held revision: it fails once another replica holds the
 *   key, and the partition is released at once;
 * - a replica that could not renew for `leaseMs * 3/4` (NATS unreachable, a stalled event
 *   loop) stops the partition by itself, before its lease can expire on the server: a lost
 *   lease is stopped before another replica can win it;
 * - extras beyond the share are released (stopped first, then deleted) when a live replica
 *   holds less than its share (one joined or came back);
 * - a lease still held by this replica id's previous process (a restart after a crash) is
 *   taken back at once instead of waiting for it to expire.
 *
 * What is served behind a lease must still tolerate a short overlap (a stalled holder
 * fenced late): the coordinator's expected-sequence appends, the ingest's de-duplicated
 * envelope ids.
 *
 * @example
 * const leases = await PartitionLeases.open(messaging, { partitions: 6, replicaId: 'a',
 *   leaseMs: 5000, bucket: 'my_leases', setting: 'MY_PARTITIONS', log }, owner);
 * await leases.start(); // owner.acquire(k) / owner.release(k) follow the leases
 */
/** Who holds each of `partitions` leases in `bucket` (undefined: nobody), as stored now. */
export async function leaseHolders(
  messaging: Messaging,
  bucket: string,
  partitions: number,
): Promise<(string | undefined)[]> {
  const kv = await new Kvm(messaging.client.js).open(bucket);
  const out: (string | undefined)[] = [];
  for (let k = 0; k < partitions; k++) {
    const e = await kv.get(`p${partitions}.${k}`);
    out.push(e?.operation === 'PUT' ? e.json<LeaseValue>().replica : undefined);
  }
  return out;
}

export class PartitionLeases {
  private readonly held = new Map<number, Held>();
  /** A partition being started or stopped: nothing else happens to it meanwhile. */
  private readonly busy = new Map<number, Promise<void>>();
  private readonly incarnation = randomUUID();
  /** Each announced replica's partition count and when its announcement last changed. */
  private readonly members = new Map<string, { partitions: number; changedAt: number }>();
  private readonly tickMs: number;
  private readonly fenceMs: number;
  private stopped = false;
  private loop?: Promise<void>;
  /** Who holds each partition, as the bucket last told (an expired lease may linger). */
  private readonly holderByPartition = new Map<number, string>();
  private watcher?: { stop(): void };
  /** Stops partitions not renewed in time even while a tick hangs on an unreachable NATS. */
  private fence?: NodeJS.Timeout;

  private constructor(
    private readonly kv: KV,
    private readonly opts: PartitionLeaseOptions,
    private readonly owner: PartitionOwner,
  ) {
    this.tickMs = Math.max(Math.floor(opts.leaseMs / 6), 50);
    this.fenceMs = Math.floor((opts.leaseMs * 3) / 4);
  }

  static async open(
    messaging: Messaging,
    opts: PartitionLeaseOptions,
    owner: PartitionOwner,
  ): Promise<PartitionLeases> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(opts.replicaId)) {
      throw new Error(`invalid replica id "${opts.replicaId}"`);
    }
    const bucket = opts.bucket;
    const kvm = new Kvm(messaging.client.js);
    let kv: KV;
    try {
      kv = await kvm.create(bucket, {
        history: 1,
        ttl: opts.leaseMs,
        storage: StorageType.File,
        replicas: jetStreamReplicas(),
      });
    } catch (e) {
      // Created by a replica with another lease time: that bucket's TTL is the lease.
      kv = await kvm.open(bucket);
      const ttl = (await kv.status()).ttl;
      if (!ttl) throw new Error(`lease bucket ${bucket} exists without a TTL: delete it`);
      opts.log.warn({ bucket, ttl, leaseMs: opts.leaseMs, err: (e as Error).message });
      opts = { ...opts, leaseMs: ttl };
    }
    return new PartitionLeases(kv, opts, owner);
  }

  /** Partitions this replica holds a lease on. */
  get owned(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  /** The replica holding partition `k`'s lease, as far as this replica knows. */
  holderOf(k: number): string | undefined {
    return this.held.has(k) ? this.opts.replicaId : this.holderByPartition.get(k);
  }

  get replicaId(): string {
    return this.opts.replicaId;
  }

  /** Takes a first share of the partitions, then keeps renewing and rebalancing. */
  async start(): Promise<void> {
    // One watch keeps who holds what and who is alive, with no reads per tick.
    const prefix = `p${this.opts.partitions}.`;
    const watch = await this.kv.watch({ key: '>' });
    this.watcher = watch;
    void (async () => {
      for await (const e of watch) {
        if (e.key.startsWith('m.')) {
          const replica = e.key.slice(2);
          if (e.operation !== 'PUT') this.members.delete(replica);
          else {
            const v = e.json<LeaseValue>();
            this.members.set(replica, { partitions: v.partitions, changedAt: Date.now() });
          }
          continue;
        }
        const k = Number(e.key.slice(prefix.length));
        if (e.operation === 'PUT') this.holderByPartition.set(k, e.json<LeaseValue>().replica);
        else this.holderByPartition.delete(k);
      }
    })().catch(() => undefined);
    await this.tick().catch((e: Error) => this.opts.log.warn({ err: e.message, msg: 'lease' }));
    this.fence = setInterval(() => {
      for (const [k, h] of this.held) {
        if (Date.now() - h.renewedAt >= this.fenceMs) this.lose(k, 'not renewed in time');
      }
    }, this.tickMs);
    this.loop = (async () => {
      while (!this.stopped) {
        await sleep(this.tickMs);
        if (this.stopped) break;
        await this.tick().catch((e: Error) => this.opts.log.warn({ err: e.message, msg: 'lease' }));
      }
    })();
  }

  /** Stops every partition, then gives the leases back so that others take them at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.fence);
    this.watcher?.stop();
    await this.loop;
    const held = [...this.held];
    this.held.clear();
    await Promise.all([...this.busy.values()]);
    await Promise.all(
      held.map(async ([k, h]) => {
        await this.owner.release(k);
        await this.kv.delete(this.key(k), { previousSeq: h.revision }).catch(() => undefined);
      }),
    );
    await this.kv.delete(this.memberKey()).catch(() => undefined);
  }

  private key(k: number): string {
    return `p${this.opts.partitions}.${k}`;
  }

  private memberKey(): string {
    return `m.${this.opts.replicaId}`;
  }

  private value(): string {
    const v: LeaseValue = {
      replica: this.opts.replicaId,
      incarnation: this.incarnation,
      partitions: this.opts.partitions,
    };
    return JSON.stringify(v);
  }

  /** Runs `work` for partition `k` after whatever is already running for it. */
  private serialize(k: number, work: () => Promise<void>): void {
    const p = (this.busy.get(k) ?? Promise.resolve())
      .then(work)
      .catch((e: Error) => this.opts.log.error({ partition: k, err: e.message, msg: 'partition' }))
      .finally(() => {
        if (this.busy.get(k) === p) this.busy.delete(k);
      });
    this.busy.set(k, p);
  }

  private lose(k: number, why: string): void {
    if (!this.held.delete(k)) return;
    this.opts.log.warn({ partition: k, why, msg: 'partition lease lost' });
    this.serialize(k, () => this.owner.release(k, true));
  }

  async tick(): Promise<void> {
    // Renewals (and the self-fencing in them) go first, whatever else fails (NATS down).
    await this.renew();
    if (this.stopped) return;
    await this.kv.put(this.memberKey(), this.value());
    const live = this.liveReplicas();
    if (live === null) return;
    const P = this.opts.partitions;
    const share = Math.ceil(P / live.size);
    const kept = [...this.held.values()].filter((h) => !h.releasing).length;
    if (kept < share) await this.take(share - kept);
    else if (kept > share) {
      // Only for a live replica below its fair share (one that joined or came back): not
      // for one that merely looks slow, nor while the replicas are still settling.
      const holders = this.holders();
      const floor = Math.floor(P / live.size);
      const needy = [...live].some((r) => (holders.get(r) ?? 0) < floor);
      if (needy) this.giveBack(kept - share);
    }
  }

  private async renew(): Promise<void> {
    await Promise.all(
      [...this.held].map(async ([k, h]) => {
        const sentAt = Date.now();
        try {
          const timeout = Math.max(this.fenceMs - this.tickMs, 100);
          h.revision = await this.kv.update(this.key(k), this.value(), h.revision, timeout);
          h.renewedAt = sentAt;
        } catch (e) {
          if (isConflict(e)) this.lose(k, 'taken by another replica');
          else if (Date.now() - h.renewedAt >= this.fenceMs) this.lose(k, 'not renewed in time');
        }
      }),
    );
    // Renewals that succeeded too late (a stalled event loop) also count as lost.
    for (const [k, h] of this.held) {
      if (Date.now() - h.renewedAt >= this.fenceMs) this.lose(k, 'not renewed in time');
    }
  }

  /**
   * Replicas that renewed their announcement lately (a killed one stops at once, long before
   * its entry expires), from the bucket watch; null when one runs with another partition
   * count.
   */
  private liveReplicas(): Set<string> | null {
    const now = Date.now();
    const live = new Set([this.opts.replicaId]);
    for (const [replica, m] of this.members) {
      if (m.partitions !== this.opts.partitions) {
        this.opts.log.error({
          replica,
          partitions: m.partitions,
          mine: this.opts.partitions,
          msg: `replicas disagree on ${this.opts.setting}: taking no partitions`,
        });
        return null;
      }
      if (now - m.changedAt <= this.tickMs * 3) live.add(replica);
    }
    return live;
  }

  /** How many partitions each replica holds, from the leases. */
  private holders(): Map<string, number> {
    const out = new Map<string, number>();
    for (let k = 0; k < this.opts.partitions; k++) {
      const r = this.holderOf(k);
      if (r !== undefined) out.set(r, (out.get(r) ?? 0) + 1);
    }
    return out;
  }

  private giveBack(n: number): void {
    const candidates = this.owned.filter((k) => !this.held.get(k)!.releasing);
    for (const k of candidates.reverse().slice(0, n)) {
      const h = this.held.get(k)!;
      h.releasing = true;
      this.opts.log.log({ partition: k, msg: 'partition handed over' });
      this.serialize(k, async () => {
        await this.owner.release(k);
        // Lost meanwhile (renewals went on): nothing to give back.
        if (this.held.get(k) !== h) return;
        this.held.delete(k);
        await this.kv.delete(this.key(k), { previousSeq: h.revision }).catch(() => undefined);
      });
    }
  }

  private async take(n: number): Promise<void> {
    // Replicas start their search at different partitions, so they rarely race for one.
    const P = this.opts.partitions;
    let offset = 0;
    for (const c of this.opts.replicaId) offset = (offset * 31 + c.charCodeAt(0)) % P;
    for (let i = 0; i < P && n > 0 && !this.stopped; i++) {
      const k = (offset + i) % P;
      if (this.held.has(k) || this.busy.has(k)) continue;
      const sentAt = Date.now();
      const revision = await this.claim(k);
      if (revision === null) continue;
      this.held.set(k, { revision, renewedAt: sentAt });
      n--;
      this.opts.log.log({ partition: k, msg: 'partition acquired' });
      this.serialize(k, async () => {
        try {
          await this.owner.acquire(k);
        } catch (e) {
          this.opts.log.error({ partition: k, err: (e as Error).message, msg: 'not started' });
          // Stopped again; the lease runs out and this or another replica tries later.
          this.held.delete(k);
          await this.owner.release(k);
        }
      });
    }
  }

  /** The revision of a won lease on `k`, or null when another replica holds it. */
  private async claim(k: number): Promise<number | null> {
    const e = await this.kv.get(this.key(k));
    try {
      if (!e || e.operation !== 'PUT') return await this.kv.create(this.key(k), this.value());
      const v = e.json<LeaseValue>();
      if (v.replica === this.opts.replicaId && v.incarnation !== this.incarnation) {
        return await this.kv.update(this.key(k), this.value(), e.revision);
      }
      return null;
    } catch (e) {
      if (isConflict(e) || /exists/i.test((e as Error).message)) return null;
      throw e;
    }
  }
}
