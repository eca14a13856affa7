import { Logger } from '@nestjs/common';
import { LLM_USAGE_BATCH_EVENT, Subjects } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import type { UsageRecord, UsageSink } from '@dirigent/llm';
import { observeUsage } from './metrics';

/** The header that names the gateway instance holding a call's reservation. */
export const INSTANCE_HEADER = 'Dirigent-Gateway-Instance';

const RETRY_MS = 1_000;
const MAX_UNPUBLISHED = 100_000;
/**
 * Records of calls that ended within this long of each other go to NATS together, in one
 * message of at most `COALESCE_MAX` records. Each publish wakes nats-server and, with its
 * ack, this process, and each message is one more for the ledger consumer to decode and
 * ack: one message per call was about a third of the gateway's added latency at one
 * client and a tenth of its CPU at fifty (docs/performance.md). It is also how long a
 * record can wait in this process after its answer; the records of a SIGKILLed gateway's
 * last few milliseconds are lost with it, as a record was before between the answer and
 * the publish.
 */
export const COALESCE_MS = 10;
export const COALESCE_MAX = 256;

/**
 * The usage ledger's entry point: each call's usage record is published once, in an
 * `llm.usage.batch` event with the records of the calls that ended close to it, as soon as
 * the call has answered (JetStream stores it durably; the batch's id, made of its first
 * record's, is the `Nats-Msg-Id`, so a re-publish is de-duplicated). The ledger rows and the
 * settlements are written from that stream by the {@link LedgerConsumer}, so a gateway
 * killed after a call loses nothing of it. A record JetStream did not take (NATS away) is
 * published again until it is, bounded.
 */
export class UsagePublisher implements UsageSink {
  private readonly log = new Logger('llm-gateway:ledger');
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Batches JetStream did not take yet, and how many records they hold. */
  private unpublished: UsageRecord[][] = [];
  private unpublishedRecords = 0;
  private ended: UsageRecord[] = [];
  private timer?: NodeJS.Timeout;
  private coalescing?: NodeJS.Timeout;
  private draining = false;

  constructor(
    private readonly messaging: Pick<Messaging, 'publishEvent'>,
    private readonly instanceId: string,
    private readonly coalesceMs = COALESCE_MS,
  ) {}

  record(u: UsageRecord): void {
    observeUsage(u);
    this.ended.push(u);
    // Never before the answer is written (the call records its usage just before that).
    if (this.ended.length === COALESCE_MAX) setImmediate(this.publishEnded);
    else this.coalescing ??= setTimeout(this.publishEnded, this.coalesceMs);
  }

  /** Publishes the records waiting here (one socket write to NATS for all of them). */
  private readonly publishEnded = () => {
    clearTimeout(this.coalescing);
    this.coalescing = undefined;
    const ended = this.ended;
    this.ended = [];
    if (ended.length) this.publish(ended);
  };

  private publish(records: UsageRecord[]): void {
    const id = `llm-usage-batch:${records[0].id}`;
    const p = this.messaging
      .publishEvent(
        Subjects.llm.usage,
        LLM_USAGE_BATCH_EVENT,
        { records },
        {
          id,
          headers: { [INSTANCE_HEADER]: this.instanceId },
        },
      )
      .catch((e: Error) => {
        this.log.warn(`usage ${id} (${records.length} records) not published yet: ${e.message}`);
        if (this.unpublishedRecords + records.length > MAX_UNPUBLISHED) {
          this.log.error(
            `usage ${id} (${records.length} records) dropped: ${MAX_UNPUBLISHED} records await NATS`,
          );
          return;
        }
        this.unpublished.push(records);
        this.unpublishedRecords += records.length;
        // At shutdown `drain` makes the last try itself: no timer outlives the service.
        if (this.draining) return;
        this.timer ??= setTimeout(() => this.retry(), RETRY_MS).unref();
      })
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  private retry(): void {
    this.timer = undefined;
    const again = this.unpublished;
    this.unpublished = [];
    this.unpublishedRecords = 0;
    for (const batch of again) this.publish(batch);
  }

  /** Waits until every record is published (one more try for those that failed). */
  async drain(): Promise<void> {
    this.draining = true;
    this.publishEnded();
    await Promise.allSettled([...this.inFlight]);
    if (this.unpublished.length) {
      clearTimeout(this.timer);
      this.retry();
      await Promise.allSettled([...this.inFlight]);
      clearTimeout(this.timer);
      this.timer = undefined;
      if (this.unpublished.length)
        this.log.error(`${this.unpublishedRecords} usage records could not be published`);
    }
  }
}
