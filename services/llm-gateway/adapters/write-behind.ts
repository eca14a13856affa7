import { Logger } from '@nestjs/common';
import { LLM_USAGE_EVENT, Subjects } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import type { Micros, UsageRecord, UsageSink } from '@dirigent/llm';
import { observeUsage } from './metrics';

const RETRY_MS = 1_000;
const MAX_BUFFERED_RECORDS = 100_000;

/** What the settled calls of one guild day release from its reservation and add to its spend. */
export interface Settlement {
  guildId: string;
  day: string;
  released: Micros;
  spent: Micros;
}

/** Writes one batch durably, all or nothing. */
export interface LedgerWriter {
  write(settlements: Settlement[], records: UsageRecord[]): Promise<void>;
}

interface PendingSettle {
  reserved: Micros;
  actual: Micros;
}

/**
 * Settlements and usage records, written behind the request path: every `flushMs` (or
 * `maxBatch` items) one durable batch applies the summed settlements per guild and day
 * and appends the ledger rows; then each record is published on `Subjects.llm.usage`.
 * A reservation stays held until its settlement is flushed, which only errs towards
 * refusing.
 */
export class WriteBehind implements UsageSink {
  private readonly log = new Logger('llm-gateway:ledger');
  private settles = new Map<string, PendingSettle>();
  private records: UsageRecord[] = [];
  private waiters: { resolve(): void; reject(e: Error): void }[] = [];
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly published = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly ledger: LedgerWriter,
    private readonly messaging: Pick<Messaging, 'publishEvent'>,
    private readonly flushMs = 10,
    private readonly maxBatch = 500,
  ) {}

  settle(guildId: string, day: string, reserved: Micros, actual: Micros): Promise<void> {
    const key = `${guildId}\u0000${day}`;
    const s = this.settles.get(key) ?? { reserved: 0, actual: 0 };
    s.reserved += reserved;
    s.actual += actual;
    this.settles.set(key, s);
    return this.enqueued();
  }

  record(u: UsageRecord): void {
    observeUsage(u);
    this.records.push(u);
    void this.enqueued().catch((e: Error) =>
      this.log.error(`usage ${u.id} not recorded: ${e.message}`),
    );
  }

  private enqueued(): Promise<void> {
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (this.settles.size + this.records.length >= this.maxBatch) this.schedule(0);
    else this.schedule(this.flushMs);
    return done;
  }

  private schedule(ms: number): void {
    if (this.timer && ms > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flushing.then(() => this.flush());
    }, ms);
  }

  private async flush(): Promise<void> {
    const settles = this.settles;
    const records = this.records;
    const waiters = this.waiters;
    this.settles = new Map();
    this.records = [];
    this.waiters = [];
    if (!settles.size && !records.length) return waiters.forEach((w) => w.resolve());
    try {
      const settlements = [...settles].map(([key, v]) => {
        const [guildId, day] = key.split('\u0000');
        return { guildId, day, released: v.reserved, spent: v.actual };
      });
      await this.ledger.write(settlements, records);
      waiters.forEach((w) => w.resolve());
    } catch (e) {
      if (this.stopped) {
        waiters.forEach((w) => w.reject(e as Error));
        return;
      }
      // Postgres is away: keep the batch (a lost settlement would hold its reservation
      // until the day ends) and try again, bounded so an outage cannot exhaust memory.
      this.log.error(
        `ledger flush of ${records.length} records failed, retrying: ${(e as Error).message}`,
      );
      for (const [key, v] of settles) {
        const cur = this.settles.get(key) ?? { reserved: 0, actual: 0 };
        this.settles.set(key, {
          reserved: cur.reserved + v.reserved,
          actual: cur.actual + v.actual,
        });
      }
      const room = Math.max(0, MAX_BUFFERED_RECORDS - this.records.length);
      if (records.length > room) this.log.error(`dropping ${records.length - room} usage records`);
      this.records = [...records.slice(records.length - room), ...this.records];
      this.waiters = [...waiters, ...this.waiters];
      clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flushing = this.flushing.then(() => this.flush());
      }, RETRY_MS);
      return;
    }
    for (const u of records) {
      const p = this.messaging
        .publishEvent(Subjects.llm.usage, LLM_USAGE_EVENT, u, { id: `llm-usage:${u.id}` })
        .catch((e: Error) => this.log.warn(`usage event ${u.id} not published: ${e.message}`))
        .finally(() => this.published.delete(p));
      this.published.add(p);
    }
  }

  /** Flushes what is queued and waits for the usage events; `final` stops retrying. */
  async drain(final = false): Promise<void> {
    if (final) this.stopped = true;
    if (this.settles.size || this.records.length) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.flushing = this.flushing.then(() => this.flush());
    }
    await this.flushing;
    await Promise.allSettled([...this.published]);
  }
}
