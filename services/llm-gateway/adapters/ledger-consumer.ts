import { Logger } from '@nestjs/common';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { Streams, Subjects } from '@dirigent/contracts';
import { ensureDurable, type NatsClient } from '@dirigent/messaging';
import type { UsageRecord } from '@dirigent/llm';
import type { LedgerEntry } from './postgres-ledger';
import { INSTANCE_HEADER } from './usage-publisher';

/**
 * The gateways' shared durable consumer of `dirigent.llm.usage` that writes the ledger.
 * Starts at new messages: the events published before it first existed were written by
 * the gateways themselves.
 */
export const LEDGER_DURABLE = 'llm-gateway-ledger';

/** Writes a batch durably, all or nothing; returns how many entries were new. */
export interface LedgerStore {
  apply(entries: LedgerEntry[]): Promise<number>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isInt = (v: unknown) => Number.isInteger(v);
const isNum = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown) => typeof v === 'string';
const isOptStr = (v: unknown) => v === null || v === undefined || isStr(v);

/** The usage record in an `llm.usage` envelope, when it is one the ledger can store. */
export function ledgerEntry(body: unknown, instanceId: string | undefined): LedgerEntry | string {
  const env = body as { type?: unknown; data?: Record<string, unknown> } | null;
  const u = env?.data;
  if (!u || typeof u !== 'object') return 'not an envelope with data';
  if (!isStr(u.id) || !UUID.test(u.id as string)) return 'id: not a uuid';
  if (!isStr(u.at) || Number.isNaN(Date.parse(u.at as string))) return 'at: not a time';
  if (!isStr(u.guildId) || (u.guildId as string).length > 64) return 'guildId';
  for (const k of ['inputTokens', 'outputTokens', 'latencyMs', 'attempts'])
    if (!isInt(u[k])) return `${k}: not an integer`;
  for (const k of ['reservedUsd', 'costUsd']) if (!isNum(u[k])) return `${k}: not a number`;
  for (const k of ['purpose', 'model', 'provider', 'error'])
    if (!isOptStr(u[k])) return `${k}: not a string`;
  if (!isStr(u.kind) || !isStr(u.outcome) || !isStr(u.requestedModel)) return 'kind/outcome';
  if (typeof u.stream !== 'boolean') return 'stream: not a boolean';
  if (!Array.isArray(u.fallbacks)) return 'fallbacks: not an array';
  return {
    record: u as unknown as UsageRecord,
    instanceId: instanceId && UUID.test(instanceId) ? instanceId : undefined,
  };
}

/**
 * Writes the usage ledger behind the request path, from JetStream: every gateway replica
 * pulls from one durable consumer, collects what arrives for up to `flushMs` (or
 * `maxBatch` records) and applies it in one statement, then acks. Nothing is acked before
 * Postgres has it; a redelivery (a replica killed mid-batch, Postgres away) is skipped by
 * record id, so each call is booked exactly once. A batch that fails is applied record by
 * record, so one unstorable record cannot hold the rest back; Postgres refusing it as data
 * drops it (terminated, logged), anything else (Postgres away) retries it.
 */
export class LedgerConsumer {
  private readonly log = new Logger('llm-gateway:ledger');
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private batch: JsMsg[] = [];
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: Pick<NatsClient, 'js' | 'jsm'>,
    private readonly ledger: LedgerStore,
    private readonly flushMs = 100,
    private readonly maxBatch = 1_000,
  ) {}

  async start(): Promise<void> {
    await ensureDurable(this.client.jsm, {
      stream: Streams.llmUsage,
      durable: LEDGER_DURABLE,
      filterSubject: Subjects.llm.usage,
      // redelivered until Postgres takes it; only an unstorable record is dropped
      maxDeliver: 1_000_000,
      ackWaitMs: 15_000,
      maxAckPending: 20_000,
      deliverPolicy: 'new',
    });
    const consumer = await this.client.js.consumers.get(Streams.llmUsage, LEDGER_DURABLE);
    this.messages = await consumer.consume({ max_messages: 2 * this.maxBatch });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const m of messages) {
        this.batch.push(m);
        this.schedule(this.batch.length >= this.maxBatch ? 0 : this.flushMs);
      }
    })().catch((e: Error) => this.log.error(`ledger consumer stopped: ${e.message}`));
  }

  /** Writes what has arrived and stops pulling; the rest stays in the stream for the others. */
  async stop(): Promise<void> {
    await this.messages?.close().catch(() => undefined);
    await this.loop;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(() => this.flush());
    await this.flushing;
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
    const msgs = this.batch;
    this.batch = [];
    if (!msgs.length) return;
    const good: { m: JsMsg; e: LedgerEntry }[] = [];
    for (const m of msgs) {
      let e: LedgerEntry | string;
      try {
        e = ledgerEntry(m.json(), m.headers?.get(INSTANCE_HEADER) || undefined);
      } catch {
        e = 'unreadable JSON';
      }
      if (typeof e === 'string') {
        this.log.error(`usage message ${m.seq} dropped: ${e}`);
        m.term();
      } else good.push({ m, e });
    }
    if (!good.length) return;
    try {
      await this.ledger.apply(good.map((g) => g.e));
      for (const g of good) g.m.ack();
      return;
    } catch (e) {
      if (good.length === 1) return this.failed(good[0].m, e as Error);
      this.log.warn(
        `ledger batch of ${good.length} failed, applying one by one: ${(e as Error).message}`,
      );
    }
    for (const g of good) {
      try {
        await this.ledger.apply([g.e]);
        g.m.ack();
      } catch (e) {
        this.failed(g.m, e as Error);
      }
    }
  }

  /** A record Postgres refuses as data (SQLSTATE class 22 or 23) is dropped; else retried. */
  private failed(m: JsMsg, e: Error & { code?: unknown }): void {
    if (/^2[23]/.test(String(e.code ?? ''))) {
      this.log.error(`usage message ${m.seq} dropped, Postgres refuses it: ${e.message}`);
      m.term();
    } else m.nak(1_000);
  }
}
