import { Logger } from '@nestjs/common';
import { createInbox, type NatsConnection } from '@nats-io/nats-core';
import { Durables, LLM_USAGE_BATCH_EVENT, Streams, Subjects } from '@dirigent/contracts';
import { ensureDurable, type NatsClient } from '@dirigent/messaging';
import type { UsageRecord } from '@dirigent/llm';
import type { LedgerEntry } from './postgres-ledger';
import { INSTANCE_HEADER } from './usage-publisher';

/**
 * The gateways' shared durable consumer of usage events (`Subjects.llm.usage`) that writes
 * the ledger. Starts at new messages: the events published before it first existed were
 * written by the gateways themselves.
 */
export const LEDGER_DURABLE = Durables.gatewayLedger;

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
 * The usage records of one message: an `llm.usage.batch` envelope's records (each checked
 * as {@link ledgerEntry} checks one; what is no usage record is named in `refused`), or an
 * `llm.usage` envelope's one record.
 */
export function ledgerEntries(
  body: unknown,
  instanceId: string | undefined,
): { entries: LedgerEntry[]; refused: string[] } {
  const env = body as { type?: unknown; data?: { records?: unknown } } | null;
  if (env?.type !== LLM_USAGE_BATCH_EVENT) {
    const e = ledgerEntry(body, instanceId);
    return typeof e === 'string' ? { entries: [], refused: [e] } : { entries: [e], refused: [] };
  }
  const records = env.data?.records;
  if (!Array.isArray(records)) return { entries: [], refused: ['records: not an array'] };
  const entries: LedgerEntry[] = [];
  const refused: string[] = [];
  records.forEach((data: unknown, i) => {
    const e = ledgerEntry({ data }, instanceId);
    if (typeof e === 'string') refused.push(`records[${i}]: ${e}`);
    else entries.push(e);
  });
  return { entries, refused };
}

/** Postgres refusing a record as data (SQLSTATE class 22 or 23): retrying cannot help. */
const refusedAsData = (e: unknown) => /^2[23]/.test(String((e as { code?: unknown }).code ?? ''));

/** One delivered message of a pull, as the ledger consumer settles it. */
export interface Delivery {
  json(): unknown;
  header(name: string): string | undefined;
  ack(): void;
  nak(delayMs: number): void;
  term(): void;
  /** For logs: the stream sequence (from the ack subject). */
  readonly seq: string;
}

/** Asks for up to `batch` messages that are waiting now; resolves with them. */
export type Pull = (batch: number) => Promise<Delivery[]>;

const PULL_TIMEOUT_MS = 5_000;

/**
 * A pull that returns at once with what is waiting (`no_wait`), over one reply inbox:
 * a batch arrives in a burst, so the request path is not woken once per message.
 */
export function noWaitPull(
  nc: NatsConnection,
  stream: string,
  durable: string,
  inboxPrefix?: string,
): {
  pull: Pull;
  close(): void;
} {
  const inbox = createInbox(inboxPrefix);
  let current: { got: Delivery[]; batch: number; done(): void } | undefined;
  const sub = nc.subscribe(inbox, {
    callback: (_err, m) => {
      const c = current;
      if (!c) return;
      const code = m.headers?.code ?? 0;
      if (!m.reply?.startsWith('$JS.ACK.')) {
        // a status (404 no messages, 408 timeout, 409 …): the pull is over
        if (code >= 300 || !m.data.length) c.done();
        return;
      }
      const settle = (what: string) => m.respond(what);
      c.got.push({
        json: () => m.json(),
        header: (name) => m.headers?.get(name) || undefined,
        ack: () => settle('+ACK'),
        nak: (ms) => settle(`-NAK ${JSON.stringify({ delay: ms * 1_000_000 })}`),
        term: () => settle('+TERM'),
        seq: m.reply.split('.')[5] ?? '?',
      });
      if (c.got.length >= c.batch) c.done();
    },
  });
  const pull: Pull = (batch) =>
    new Promise<Delivery[]>((resolve) => {
      const got: Delivery[] = [];
      const timer = setTimeout(() => done(), PULL_TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        if (current?.got === got) current = undefined;
        resolve(got);
      };
      current = { got, batch, done };
      nc.publish(
        `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
        JSON.stringify({ batch, no_wait: true }),
        { reply: inbox },
      );
    });
  return { pull, close: () => sub.unsubscribe() };
}

/**
 * Writes the usage ledger behind the request path, from JetStream: every gateway replica
 * pulls from one durable consumer, every `flushMs` (at once again after a full batch),
 * what is waiting, applies the records of all those messages in one statement, then acks.
 * Nothing is acked before Postgres has it durably; a redelivery (a replica killed
 * mid-batch, Postgres away) is skipped by record id, so each call is booked exactly once.
 * A batch that fails is applied message by message, and a message that fails record by
 * record, so one unstorable record cannot hold the rest back; Postgres refusing it as data
 * drops it (logged), anything else (Postgres away) retries its message.
 */
export class LedgerConsumer {
  private readonly log = new Logger('llm-gateway:ledger');
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private closePull?: () => void;
  private pull?: Pull;

  constructor(
    private readonly client: Pick<NatsClient, 'nc' | 'jsm' | 'inboxPrefix'>,
    private readonly ledger: LedgerStore,
    private readonly flushMs = 100,
    private readonly maxBatch = 1_000,
  ) {}

  /** Creates the durable consumer and starts pulling (a `pull` replaces the NATS one in tests). */
  async start(pull?: Pull): Promise<void> {
    if (!pull) {
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
      const p = noWaitPull(
        this.client.nc,
        Streams.llmUsage,
        LEDGER_DURABLE,
        this.client.inboxPrefix,
      );
      this.closePull = p.close;
      pull = p.pull;
    }
    this.pull = pull;
    this.schedule(0);
  }

  /** Writes what is waiting once more and stops; the rest stays in the stream for the others. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    if (this.pull) await this.round();
    this.closePull?.();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round().then((full) => this.schedule(full ? 0 : this.flushMs));
    }, ms);
  }

  /** Pulls and writes one batch; true when it was full (more is waiting). */
  private async round(): Promise<boolean> {
    try {
      const got = await this.pull!(this.maxBatch);
      await this.flush(got);
      return got.length >= this.maxBatch;
    } catch (e) {
      this.log.warn(`ledger pull failed: ${(e as Error).message}`);
      return false;
    }
  }

  private async flush(msgs: Delivery[]): Promise<void> {
    if (!msgs.length) return;
    const good: { m: Delivery; entries: LedgerEntry[] }[] = [];
    for (const m of msgs) {
      let read: { entries: LedgerEntry[]; refused: string[] };
      try {
        read = ledgerEntries(m.json(), m.header(INSTANCE_HEADER));
      } catch {
        read = { entries: [], refused: ['unreadable JSON'] };
      }
      for (const why of read.refused) this.log.error(`usage message ${m.seq} dropped: ${why}`);
      if (read.entries.length) good.push({ m, entries: read.entries });
      else m.term();
    }
    if (!good.length) return;
    try {
      await this.ledger.apply(good.flatMap((g) => g.entries));
      for (const g of good) g.m.ack();
      return;
    } catch (e) {
      if (good.length === 1 && good[0].entries.length === 1)
        return this.failed(good[0].m, e as Error);
      this.log.warn(
        `ledger batch of ${good.length} messages failed, applying one by one: ${(e as Error).message}`,
      );
    }
    for (const g of good) await this.applyOne(g.m, g.entries);
  }

  /** One message's records, then record by record if they fail together. */
  private async applyOne(m: Delivery, entries: LedgerEntry[]): Promise<void> {
    try {
      await this.ledger.apply(entries);
      return m.ack();
    } catch (e) {
      if (entries.length === 1) return this.failed(m, e as Error);
    }
    for (const entry of entries) {
      try {
        await this.ledger.apply([entry]);
      } catch (e) {
        if (!refusedAsData(e)) return m.nak(1_000);
        this.log.error(
          `usage ${entry.record.id} of message ${m.seq} dropped, Postgres refuses it: ${(e as Error).message}`,
        );
      }
    }
    m.ack();
  }

  /** A record Postgres refuses as data (SQLSTATE class 22 or 23) is dropped; else retried. */
  private failed(m: Delivery, e: Error): void {
    if (refusedAsData(e)) {
      this.log.error(`usage message ${m.seq} dropped, Postgres refuses it: ${e.message}`);
      m.term();
    } else m.nak(1_000);
  }
}
