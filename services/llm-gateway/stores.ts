import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Pool, type PoolClient } from 'pg';
import { LLM_USAGE_EVENT, Subjects } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { observeUsage } from './metrics';
import {
  microsToUsd,
  type BudgetStore,
  type LlmConfig,
  type Micros,
  type PolicySource,
  type PurposeRoute,
  type ReserveResult,
  type UsageRecord,
  type UsageSink,
} from '@dirigent/llm';

/** The `llm_guild_budget` row that holds the run-time default for every guild. */
export const DEFAULT_BUDGET_ROW = '*';

type Row = Record<string, unknown>;

/** `?` placeholders in pg's `$n` notation (none of the gateway's SQL has a literal `?`). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * The gateway's own Postgres pool. Its sessions commit asynchronously
 * (`synchronous_commit=off`): a reservation is short-lived by nature, so waiting for a
 * WAL flush on every request would only add latency; atomicity and row locks are
 * unchanged. The batched spend and ledger writes turn synchronous commit back on.
 */
export class Sql {
  private readonly pool: Pool;
  private readonly texts = new Map<string, { name: string; text: string }>();

  constructor(databaseUrl: string, max = 20) {
    this.pool = new Pool({
      connectionString: databaseUrl,
      max,
      idleTimeoutMillis: 30_000,
      options: '-c synchronous_commit=off',
      application_name: 'dirigent-llm-gateway',
    });
    this.pool.on('error', () => undefined);
  }

  private statement(sql: string): { name: string; text: string } {
    let t = this.texts.get(sql);
    if (!t) {
      t = { name: `llm_gw_${this.texts.size}`, text: numbered(sql) };
      this.texts.set(sql, t);
    }
    return t;
  }

  private text(sql: string): string {
    return this.statement(sql).text;
  }

  /** Runs one statement, prepared once per connection (the hot path parses nothing). */
  async rows(sql: string, params: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query({ ...this.statement(sql), values: params })).rows;
  }

  /** Runs `fn` in one transaction with a durable (synchronous) commit. */
  async durable<T>(
    fn: (q: (sql: string, params?: unknown[]) => Promise<Row[]>) => Promise<T>,
  ): Promise<T> {
    const client: PoolClient = await this.pool.connect();
    try {
      await client.query('begin');
      await client.query('set local synchronous_commit = on');
      const result = await fn(
        async (sql, params = []) => (await client.query(this.text(sql), params)).rows,
      );
      await client.query('commit');
      return result;
    } catch (e) {
      await client.query('rollback').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

const LIMIT_MICROS = `coalesce(
  (select round(usd_per_day * 1000000)::bigint from llm_guild_budget where guild_id = ?),
  ?::bigint,
  (select round(usd_per_day * 1000000)::bigint from llm_guild_budget where guild_id = '${DEFAULT_BUDGET_ROW}'),
  ?::bigint)`;

/**
 * Budgets in Postgres, one row per guild and UTC day. A reservation is one conditional
 * UPDATE: Postgres re-checks the WHERE clause on the locked row, so concurrent requests
 * and any number of gateway replicas can never admit more than the limit.
 */
export class PgBudgetStore implements BudgetStore {
  constructor(
    private readonly sql: Sql,
    private readonly writes: WriteBehind,
    private readonly holders: ReservationHolders,
  ) {}

  async reserve(
    guildId: string,
    day: string,
    micros: Micros,
    configured: { guildMicros?: Micros; defaultMicros: Micros },
  ): Promise<ReserveResult> {
    const limitParams = [guildId, configured.guildMicros ?? null, configured.defaultMicros];
    // One statement: the guild row admits (under its row lock) and this instance's
    // holder row records the share it holds, so a crash can be undone by the others.
    const update = `with admitted as (
        update llm_guild_spend set reserved_micros = reserved_micros + ?, updated_at = now()
        where guild_id = ? and day = ? and spent_micros + reserved_micros + ? <= ${LIMIT_MICROS}
        returning guild_id, day)
      insert into llm_reservation_holder (guild_id, day, instance_id, reserved_micros)
      select guild_id, day, ?::uuid, ? from admitted
      on conflict (guild_id, day, instance_id)
        do update set reserved_micros = llm_reservation_holder.reserved_micros + excluded.reserved_micros
      returning 1 as ok`;
    const params = [micros, guildId, day, micros, ...limitParams, this.holders.instanceId, micros];
    let admitted = await this.sql.rows(update, params);
    if (!admitted.length) {
      // The day's row may not exist yet (or a concurrent request just created it): make
      // sure it does, then decide on it.
      await this.sql.rows(
        `insert into llm_guild_spend (guild_id, day) values (?, ?) on conflict do nothing`,
        [guildId, day],
      );
      admitted = await this.sql.rows(update, params);
    }
    if (admitted.length) return { ok: true };
    const [row] = await this.sql.rows(
      `select spent_micros, reserved_micros, ${LIMIT_MICROS} as limit_micros
       from llm_guild_spend where guild_id = ? and day = ?`,
      [...limitParams, guildId, day],
    );
    return {
      ok: false,
      spentMicros: Number(row?.spent_micros ?? 0),
      reservedMicros: Number(row?.reserved_micros ?? 0),
      limitMicros: Number(row?.limit_micros ?? 0),
    };
  }

  /** Queued: settlements are written in batches by the {@link WriteBehind}. */
  settle(guildId: string, day: string, reserved: Micros, actual: Micros): Promise<void> {
    return this.writes.settle(guildId, day, reserved, actual);
  }

  /** A guild's calls on one UTC day from the ledger, by purpose, model and outcome. */
  async usage(guildId: string, day: string): Promise<Row[]> {
    const rows = await this.sql.rows(
      `select purpose, model, outcome, count(*)::int as calls,
         sum(input_tokens)::bigint as input_tokens, sum(output_tokens)::bigint as output_tokens,
         sum(cost_usd) as cost_usd, round(avg(latency_ms))::int as avg_latency_ms
       from llm_usage where guild_id = ? and at >= ?::date and at < ?::date + 1
       group by purpose, model, outcome order by sum(cost_usd) desc, count(*) desc`,
      [guildId, day, day],
    );
    return rows.map((r) => ({
      purpose: r.purpose,
      model: r.model,
      outcome: r.outcome,
      calls: r.calls,
      inputTokens: Number(r.input_tokens),
      outputTokens: Number(r.output_tokens),
      costUsd: Number(r.cost_usd),
      avgLatencyMs: r.avg_latency_ms,
    }));
  }

  /** Spend per day for a guild, newest first, with the limit that applies. */
  async spend(
    guildId: string,
    days: number,
    configured: { guildMicros?: Micros; defaultMicros: Micros },
  ): Promise<{ day: string; spentUsd: number; reservedUsd: number; limitUsd: number }[]> {
    const [limit] = await this.sql.rows(`select ${LIMIT_MICROS} as limit_micros`, [
      guildId,
      configured.guildMicros ?? null,
      configured.defaultMicros,
    ]);
    const rows = await this.sql.rows(
      `select to_char(day, 'YYYY-MM-DD') as day, spent_micros, reserved_micros from llm_guild_spend
       where guild_id = ? order by day desc limit ?`,
      [guildId, days],
    );
    return rows.map((r) => ({
      day: String(r.day),
      spentUsd: microsToUsd(Number(r.spent_micros)),
      reservedUsd: microsToUsd(Number(r.reserved_micros)),
      limitUsd: microsToUsd(Number(limit.limit_micros)),
    }));
  }
}

/**
 * The purpose policy: the configuration file's purposes overridden by `llm_purpose_policy`
 * rows. Cached and refreshed every `refreshMs`, so the request path never waits on it;
 * an admin write refreshes this replica at once.
 */
@Injectable()
export class PolicyStore implements PolicySource, OnModuleInit, OnApplicationShutdown {
  private readonly log = new Logger('llm-gateway:policy');
  private effective: Record<string, PurposeRoute>;
  private overrides: Record<string, PurposeRoute> = {};
  private readonly warned = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly sql: Sql,
    private readonly config: LlmConfig,
    private readonly refreshMs = 2_000,
  ) {
    this.effective = { ...config.purposes };
  }

  purposes(): Record<string, PurposeRoute> {
    return this.effective;
  }

  overridden(): Record<string, PurposeRoute> {
    return this.overrides;
  }

  async onModuleInit(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), this.refreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** An override is only valid when every model it names is configured. */
  validate(route: PurposeRoute): string | undefined {
    const known = new Set(this.config.models.map((m) => m.id));
    const unknown = [route.model, ...route.fallbacks].filter((id) => !known.has(id));
    return unknown.length ? `unknown model(s): ${unknown.join(', ')}` : undefined;
  }

  async refresh(): Promise<void> {
    const rows = await this.sql.rows(`select purpose, model, fallbacks from llm_purpose_policy`);
    const overrides: Record<string, PurposeRoute> = {};
    for (const r of rows) {
      const route = { model: String(r.model), fallbacks: (r.fallbacks as string[]) ?? [] };
      const problem = this.validate(route);
      const purpose = String(r.purpose);
      if (!problem) overrides[purpose] = route;
      else if (!this.warned.has(`${purpose}:${problem}`)) {
        this.warned.add(`${purpose}:${problem}`);
        this.log.warn(`ignoring policy for ${purpose}: ${problem}`);
      }
    }
    this.overrides = overrides;
    this.effective = { ...this.config.purposes, ...overrides };
  }

  async set(purpose: string, route: PurposeRoute): Promise<void> {
    await this.sql.rows(
      `insert into llm_purpose_policy (purpose, model, fallbacks) values (?, ?, ?::jsonb)
       on conflict (purpose) do update set model = excluded.model, fallbacks = excluded.fallbacks, updated_at = now()`,
      [purpose, route.model, JSON.stringify(route.fallbacks)],
    );
    await this.refresh();
  }

  async remove(purpose: string): Promise<boolean> {
    const rows = await this.sql.rows(
      `delete from llm_purpose_policy where purpose = ? returning 1 as ok`,
      [purpose],
    );
    await this.refresh();
    return rows.length > 0;
  }
}

/** Guild budgets set at run time (`llm_guild_budget`), over the configuration file's. */
export class GuildBudgets {
  constructor(private readonly sql: Sql) {}

  async list(): Promise<Record<string, number>> {
    const rows = await this.sql.rows(`select guild_id, usd_per_day from llm_guild_budget`);
    return Object.fromEntries(rows.map((r) => [String(r.guild_id), Number(r.usd_per_day)]));
  }

  async set(guildId: string, usdPerDay: number): Promise<void> {
    await this.sql.rows(
      `insert into llm_guild_budget (guild_id, usd_per_day) values (?, ?)
       on conflict (guild_id) do update set usd_per_day = excluded.usd_per_day, updated_at = now()`,
      [guildId, usdPerDay],
    );
  }

  async remove(guildId: string): Promise<boolean> {
    const rows = await this.sql.rows(
      `delete from llm_guild_budget where guild_id = ? returning 1 as ok`,
      [guildId],
    );
    return rows.length > 0;
  }
}

type Query = (sql: string, params?: unknown[]) => Promise<Row[]>;

/** Locks guild day rows in one order, so concurrent batches and reapers never deadlock. */
async function lockInOrder(q: Query, guilds: string[], days: string[]): Promise<void> {
  await q(
    `select 1 from llm_guild_spend s join unnest(?::text[], ?::date[]) as u(guild_id, day)
       on s.guild_id = u.guild_id and s.day = u.day
     order by s.guild_id, s.day for update of s`,
    [guilds, days],
  );
}

/**
 * This gateway instance's identity and heartbeat, and the reaper of dead instances: the
 * reservations an instance held when it stopped heartbeating (a crash, a kill -9) are
 * released from the guilds' rows by whichever instance notices first. An instance
 * stalled longer than `staleMs` is treated as dead, which is why that bound is generous.
 */
export class ReservationHolders implements OnModuleInit {
  readonly instanceId = randomUUID();
  private readonly log = new Logger('llm-gateway:instances');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly sql: Sql,
    private readonly heartbeatMs = 10_000,
    private readonly staleMs = 60_000,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.heartbeat();
    await this.reap().catch((e: Error) => this.log.warn(`reaping failed: ${e.message}`));
    this.timer = setInterval(() => {
      void this.heartbeat()
        .then(() => this.reap())
        .catch((e: Error) => this.log.warn(`heartbeat/reap failed: ${e.message}`));
    }, this.heartbeatMs);
    this.timer.unref();
  }

  async heartbeat(): Promise<void> {
    await this.sql.rows(
      `insert into llm_gateway_instance (instance_id) values (?::uuid)
       on conflict (instance_id) do update set heartbeat_at = now()`,
      [this.instanceId],
    );
  }

  /** Releases the reservations of instances silent for `staleMs`; returns their ids. */
  async reap(): Promise<string[]> {
    return this.sql.durable(async (q) => {
      const dead = await q(
        `select instance_id from llm_gateway_instance
         where heartbeat_at < now() - (? * interval '1 millisecond') and instance_id <> ?::uuid
         for update skip locked`,
        [this.staleMs, this.instanceId],
      );
      const ids = dead.map((r) => String(r.instance_id));
      if (ids.length) await release(q, ids);
      return ids;
    });
  }

  /** At a clean stop (after draining): give back anything still held and leave. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sql.durable((q) => release(q, [this.instanceId]));
  }
}

async function release(q: Query, instanceIds: string[]): Promise<void> {
  const held = await q(
    `delete from llm_reservation_holder where instance_id = any(?::uuid[])
     returning guild_id, to_char(day, 'YYYY-MM-DD') as day, reserved_micros`,
    [instanceIds],
  );
  const sums = new Map<string, number>();
  for (const h of held) {
    const key = `${String(h.guild_id)}\u0000${String(h.day)}`;
    sums.set(key, (sums.get(key) ?? 0) + Number(h.reserved_micros));
  }
  const keys = [...sums.entries()].filter(([, v]) => v > 0);
  if (keys.length) {
    const guilds = keys.map(([k]) => k.split('\u0000')[0]);
    const days = keys.map(([k]) => k.split('\u0000')[1]);
    await lockInOrder(q, guilds, days);
    await q(
      `update llm_guild_spend s set reserved_micros = greatest(0, s.reserved_micros - u.released), updated_at = now()
       from unnest(?::text[], ?::date[], ?::bigint[]) as u(guild_id, day, released)
       where s.guild_id = u.guild_id and s.day = u.day`,
      [guilds, days, keys.map(([, v]) => v)],
    );
  }
  await q(`delete from llm_gateway_instance where instance_id = any(?::uuid[])`, [instanceIds]);
}

const RETRY_MS = 1_000;
const MAX_BUFFERED_RECORDS = 100_000;

interface PendingSettle {
  reserved: Micros;
  actual: Micros;
}

/**
 * Settlements and usage records, written behind the request path: every `flushMs` (or
 * `maxBatch` items) one durable transaction applies the summed settlements per guild and
 * day and inserts the ledger rows; then each record is published on `Subjects.llm.usage`.
 * A reservation stays held until its settlement is flushed, which only errs towards
 * refusing.
 */
@Injectable()
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
    private readonly sql: Sql,
    private readonly messaging: Messaging,
    private readonly instanceId: string,
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
      await this.sql.durable(async (q) => {
        if (settles.size) {
          const keys = [...settles.keys()].map((k) => k.split('\u0000'));
          const values = [...settles.values()];
          const guilds = keys.map((k) => k[0]);
          const days = keys.map((k) => k[1]);
          await q(
            `insert into llm_guild_spend (guild_id, day)
             select * from unnest(?::text[], ?::date[]) on conflict do nothing`,
            [guilds, days],
          );
          await lockInOrder(q, guilds, days);
          await q(
            `update llm_guild_spend s set
               reserved_micros = greatest(0, s.reserved_micros - u.released),
               spent_micros = s.spent_micros + u.spent,
               updated_at = now()
             from unnest(?::text[], ?::date[], ?::bigint[], ?::bigint[]) as u(guild_id, day, released, spent)
             where s.guild_id = u.guild_id and s.day = u.day`,
            [guilds, days, values.map((v) => v.reserved), values.map((v) => v.actual)],
          );
          await q(
            `update llm_reservation_holder h set reserved_micros = greatest(0, h.reserved_micros - u.released)
             from unnest(?::text[], ?::date[], ?::bigint[]) as u(guild_id, day, released)
             where h.guild_id = u.guild_id and h.day = u.day and h.instance_id = ?::uuid`,
            [guilds, days, values.map((v) => v.reserved), this.instanceId],
          );
        }
        if (records.length) {
          await q(
            `insert into llm_usage (id, at, guild_id, purpose, kind, stream, requested_model, model, provider,
               input_tokens, output_tokens, reserved_usd, cost_usd, latency_ms, outcome, error, fallbacks, attempts)
             select id, at, "guildId", purpose, kind, stream, "requestedModel", model, provider,
               "inputTokens", "outputTokens", "reservedUsd", "costUsd", "latencyMs", outcome, error,
               coalesce(fallbacks, '[]'::jsonb), attempts
             from jsonb_to_recordset(?::jsonb) as x(id uuid, at timestamptz, "guildId" text, purpose text,
               kind text, stream boolean, "requestedModel" text, model text, provider text,
               "inputTokens" int, "outputTokens" int, "reservedUsd" numeric, "costUsd" numeric,
               "latencyMs" int, outcome text, error text, fallbacks jsonb, attempts int)`,
            [JSON.stringify(records)],
          );
        }
      });
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
