import { Logger } from '@nestjs/common';
import type { Micros } from '@dirigent/llm';
import { DEFAULT_BUDGET_ROW, type ConfiguredLimits } from '../../application/ports';
import { creditAdmissions } from '../metrics';
import type { GuildDay } from './reservation-holder.repository';

/** What Postgres decided about one reservation. `missing`: the guild day has no row yet. */
export type Decision = 'admitted' | 'refused' | 'missing';

/** One statement on a connection of its own (node-postgres' `query` shape). */
export interface SqlClient {
  query(q: {
    name?: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: Record<string, unknown>[] }>;
}

interface Pending extends GuildDay {
  /** A call's reservation, credit taken ahead for the calls to come, or credit given back. */
  kind: 'call' | 'credit' | 'release';
  ord: number;
  micros: Micros;
  /** Credit is taken only while this much more would still fit after it. */
  margin: Micros;
  configured: ConfiguredLimits;
  resolve(d: Decision): void;
  reject(e: Error): void;
}

/** Credit this instance holds on a guild day: reserved in Postgres, not yet any call's. */
interface Credit {
  micros: Micros;
  usedAt: number;
  calls: number;
  /** Calls in the last whole one-second window. */
  lastCalls: number;
  since: number;
  refilling: boolean;
  noneUntil: number;
}

/** Calls per second on one guild day from which this instance reserves ahead. */
const HOT_CALLS_PER_SECOND = 20;
/**
 * Credit is taken for this many calls at a time, or for the calls of `CREDIT_AHEAD_MS` at
 * the day's rate when that is more (at most `CREDIT_MAX_CALLS`), and only while 63 times
 * as much would still fit: at thousands of calls a second a refill every 16 calls was a
 * few hundred statements a second, a tenth of the machine's Postgres time.
 */
const CREDIT_CALLS = 32;
const CREDIT_AHEAD_MS = 100;
const CREDIT_MAX_CALLS = 1_024;
const CREDIT_MARGIN = 63;
/** Unused credit goes back after this long. */
const CREDIT_IDLE_MS = 1_000;

const LIMIT_OF = (guild: string, configured: string, fallback: string) => `coalesce(
  (select round(b.usd_per_day * 1000000)::bigint from llm_guild_budget b where b.guild_id = ${guild}),
  ${configured},
  (select round(b.usd_per_day * 1000000)::bigint from llm_guild_budget b where b.guild_id = '${DEFAULT_BUDGET_ROW}'),
  ${fallback})`;

// Every request of the batch is one row of the unnest. The batch's guild days are locked
// first, in key order (so batches, settlements and replicas never deadlock), and each day's
// requests are then admitted in order while they fit (a running sum over the locked row,
// the latest committed version). The UPDATE re-checks the sum against the row as a guard:
// no number of concurrent statements or replicas pushes a day past its limit.
// `set_config(..., true)` is SET LOCAL: a reservation commits without waiting for the WAL
// flush (it is short-lived; atomicity and row locks are unchanged).
const RESERVE_BATCH = `with async_commit as (select set_config('synchronous_commit', 'off', true)),
  req as (
    select r.ord, r.guild_id, r.day, r.micros,
      ${LIMIT_OF('r.guild_id', 'r.guild_limit', 'r.default_limit')} as limit_micros
    from unnest($1::int[], $2::text[], $3::date[], $4::bigint[], $5::bigint[], $6::bigint[])
      as r(ord, guild_id, day, micros, guild_limit, default_limit)),
  locked as (
    select s.guild_id, s.day, s.spent_micros + s.reserved_micros as used
    from llm_guild_spend s
    where (s.guild_id, s.day) in (select guild_id, day from req)
      and exists (select 1 from async_commit)
    order by s.guild_id, s.day
    for update of s),
  planned as (
    select q.*, l.used,
      sum(q.micros) over (partition by q.guild_id, q.day order by q.ord) as running
    from req q left join locked l on l.guild_id = q.guild_id and l.day = q.day),
  grouped as (
    select guild_id, day, min(limit_micros) as limit_micros,
      coalesce(sum(micros) filter (where used + running <= limit_micros), 0) as admit
    from planned group by guild_id, day),
  admitted as (
    update llm_guild_spend s set reserved_micros = s.reserved_micros + g.admit, updated_at = now()
    from grouped g
    where s.guild_id = g.guild_id and s.day = g.day and g.admit > 0
      and s.spent_micros + s.reserved_micros + g.admit <= g.limit_micros
    returning s.guild_id, s.day, g.admit),
  held as (
    insert into llm_reservation_holder (guild_id, day, instance_id, reserved_micros)
    select guild_id, day, $7::uuid, admit from admitted
    on conflict (guild_id, day, instance_id)
      do update set reserved_micros = llm_reservation_holder.reserved_micros + excluded.reserved_micros
    returning 1)
  select p.ord, p.used is null as missing, p.used + p.running <= p.limit_micros as planned,
    a.admit is not null as applied, p.limit_micros - p.used - coalesce(a.admit, 0) as room
  from planned p left join admitted a on a.guild_id = p.guild_id and a.day = p.day`;

// A batch of one (every request at one client): the same decision for one request in one
// conditional UPDATE, a fifth of the batch statement's cost in Postgres. Postgres re-checks
// the condition under the row lock.
const RESERVE_ONE = `with async_commit as (select set_config('synchronous_commit', 'off', true)),
  admitted as (
    update llm_guild_spend set reserved_micros = reserved_micros + $4, updated_at = now()
    where guild_id = $2 and day = $3
      and spent_micros + reserved_micros + $4 + $8::bigint <= ${LIMIT_OF('$2', '$5::bigint', '$6::bigint')}
      and exists (select 1 from async_commit)
    returning guild_id, day),
  held as (
    insert into llm_reservation_holder (guild_id, day, instance_id, reserved_micros)
    select guild_id, day, $7::uuid, $4 from admitted
    on conflict (guild_id, day, instance_id)
      do update set reserved_micros = llm_reservation_holder.reserved_micros + excluded.reserved_micros
    returning 1)
  select $1::int as ord, (select count(*) from held) > 0 as admitted,
    not exists (select 1 from llm_guild_spend where guild_id = $2 and day = $3) as missing`;

// Gives back credit: the day's row first, then this instance's share (the order every
// statement locks them in).
const RELEASE = `with async_commit as (select set_config('synchronous_commit', 'off', true)),
  spend as (
    update llm_guild_spend set reserved_micros = greatest(0, reserved_micros - $4), updated_at = now()
    where guild_id = $2 and day = $3 and exists (select 1 from async_commit)
    returning 1)
  update llm_reservation_holder set reserved_micros = greatest(0, reserved_micros - $4)
  where guild_id = $2 and day = $3 and instance_id = $5::uuid and (select count(*) from spend) >= 0
  returning $1::int as ord`;

/**
 * Budget reservations in Postgres, group-committed: while one statement is in flight the
 * requests that arrive wait, and the next statement decides all of them at once. One
 * client costs one round trip per request (no added delay); many clients share round
 * trips, so the budget row is locked a few hundred times a second instead of once per
 * request. The statement runs on a connection of its own (a prepared statement), not
 * through the unit of work.
 *
 * Exact across replicas: see `RESERVE_BATCH`. Requests that a batch could not decide for
 * sure (a smaller request queued behind a refused bigger one, or a failed re-check) go
 * first into the next batch.
 *
 * A guild day this instance serves more than `HOT_CALLS_PER_SECOND` calls a second gets
 * credit: the reservations of its next calls (`CREDIT_CALLS`, or 100 ms of them) are taken ahead in one
 * statement (refilled in the background at half), and calls are admitted from it with no
 * round trip. Credit is reserved like any call — in the day's row and in this instance's
 * share, reaped with it — so it never lets a day past its limit; it is taken only while 63
 * times as much would still fit, given back after `CREDIT_IDLE_MS` unused, and given back
 * at once when a call of the day is refused, so near the limit every call is decided by
 * Postgres one by one. A first call, or a quiet guild, is always decided there.
 */
export class BatchedReservations {
  private readonly log = new Logger('llm-gateway:budgets');
  private queue: Pending[] = [];
  private inFlight = false;
  private seq = 0;
  private client?: Promise<SqlClient>;
  private stopped = false;
  private readonly credits = new Map<string, Credit>();
  private readonly idle: NodeJS.Timeout;

  constructor(
    private readonly connect: () => Promise<SqlClient>,
    private readonly release: (c: SqlClient) => void,
    private readonly instanceId: string,
    private readonly maxBatch = 1_000,
    private readonly now: () => number = Date.now,
  ) {
    this.idle = setInterval(() => this.giveBackIdle(), CREDIT_IDLE_MS / 2);
    this.idle.unref();
  }

  /**
   * Admits a call from the credit held on its guild day, with no round trip; `false` when
   * the credit cannot hold it (nothing taken: {@link reserve} decides it).
   */
  fromCredit(key: GuildDay, micros: Micros, configured: ConfiguredLimits): boolean {
    const k = `${key.guildId}\u0000${key.day}`;
    const credit = this.credits.get(k);
    if (!credit || credit.micros < micros) return false;
    credit.micros -= micros;
    creditAdmissions.inc();
    this.count(credit, this.now());
    this.refill(k, key, micros, configured, credit);
    return true;
  }

  async reserve(key: GuildDay, micros: Micros, configured: ConfiguredLimits): Promise<Decision> {
    if (this.fromCredit(key, micros, configured)) return 'admitted';
    const k = `${key.guildId}\u0000${key.day}`;
    const now = this.now();
    let decision = await this.enqueue('call', key, micros, 0, configured);
    if (decision === 'refused' && (this.credits.get(k)?.micros ?? 0) > 0) {
      // Near the limit: what this instance holds ahead goes back, and the call is decided again.
      await this.giveBack(k, key);
      decision = await this.enqueue('call', key, micros, 0, configured);
    }
    if (decision !== 'admitted') return decision;
    // (read again: concurrent calls of the day may have created it meanwhile)
    const held = this.credits.get(k);
    const c = held ?? {
      micros: 0,
      usedAt: now,
      calls: 0,
      lastCalls: 0,
      since: now,
      refilling: false,
      noneUntil: 0,
    };
    this.count(c, now);
    if (!held) this.credits.set(k, c);
    this.refill(k, key, micros, configured, c);
    return decision;
  }

  /** Gives back all credit, then the connection once nothing is in flight. */
  async close(): Promise<void> {
    clearInterval(this.idle);
    for (const [k, c] of this.credits)
      if (c.micros > 0) await this.giveBack(k, this.keyOf(k)).catch(() => undefined);
    this.stopped = true;
    while (this.inFlight) await new Promise((r) => setTimeout(r, 5));
    const c = this.client;
    this.client = undefined;
    if (c) await c.then((x) => this.release(x)).catch(() => undefined);
  }

  /** Counts a call of the day in the current one-second window. */
  private count(c: Credit, now: number): void {
    if (now - c.since > 1_000) {
      c.lastCalls = now - c.since < 2_000 ? c.calls : 0;
      c.calls = 0;
      c.since = now;
    }
    c.calls++;
    c.usedAt = now;
  }

  private keyOf(k: string): GuildDay {
    const [guildId, day] = k.split('\u0000');
    return { guildId, day };
  }

  private enqueue(
    kind: Pending['kind'],
    key: GuildDay,
    micros: Micros,
    margin: Micros,
    configured: ConfiguredLimits,
  ): Promise<Decision> {
    if (this.stopped) return Promise.reject(new Error('reservations are closed'));
    return new Promise<Decision>((resolve, reject) => {
      const p = { ...key, kind, ord: this.seq++, micros, margin, configured, resolve, reject };
      this.queue.push(p);
      if (!this.inFlight) void this.run();
    });
  }

  /** Takes credit ahead for a hot guild day when what is left of it runs below half. */
  private refill(
    k: string,
    key: GuildDay,
    micros: Micros,
    configured: ConfiguredLimits,
    c: Credit,
  ): void {
    const rate = Math.max(c.calls, c.lastCalls);
    const calls = Math.min(
      CREDIT_MAX_CALLS,
      Math.max(CREDIT_CALLS, (rate * CREDIT_AHEAD_MS) / 1_000),
    );
    const chunk = Math.ceil(calls) * micros;
    const now = this.now();
    if (c.refilling || c.micros >= chunk / 2 || c.calls < HOT_CALLS_PER_SECOND || now < c.noneUntil)
      return;
    c.refilling = true;
    this.enqueue('credit', key, chunk, CREDIT_MARGIN * chunk, configured)
      .then((d) => {
        if (d === 'admitted') c.micros += chunk;
        else c.noneUntil = this.now() + CREDIT_IDLE_MS;
      })
      .catch((e: Error) => this.log.warn(`credit for ${k} not taken: ${e.message}`))
      .finally(() => (c.refilling = false));
  }

  private async giveBack(k: string, key: GuildDay): Promise<void> {
    const c = this.credits.get(k);
    if (!c || c.micros <= 0) return;
    const micros = c.micros;
    c.micros = 0;
    c.noneUntil = this.now() + CREDIT_IDLE_MS;
    await this.enqueue('release', key, micros, 0, { defaultMicros: 0 }).catch((e: Error) => {
      c.micros += micros;
      throw e;
    });
  }

  private giveBackIdle(): void {
    const before = this.now() - CREDIT_IDLE_MS;
    for (const [k, c] of this.credits) {
      if (c.usedAt >= before || c.refilling) continue;
      if (c.micros > 0)
        void this.giveBack(k, this.keyOf(k)).catch((e: Error) =>
          this.log.warn(`credit for ${k} not given back yet: ${e.message}`),
        );
      else this.credits.delete(k);
    }
  }

  private async run(): Promise<void> {
    this.inFlight = true;
    try {
      while (this.queue.length) {
        const n = this.queue.findIndex((p) => p.kind !== 'call');
        // credit and give-backs go one at a time, calls in batches
        const size = n === 0 ? 1 : Math.min(n < 0 ? this.queue.length : n, this.maxBatch);
        const batch = this.queue.slice(0, size);
        this.queue = this.queue.slice(size);
        const again = await this.decide(batch);
        if (again.length) this.queue = [...again, ...this.queue];
      }
    } finally {
      this.inFlight = false;
    }
  }

  /** Decides a batch; returns the requests to decide again. */
  private async decide(batch: Pending[]): Promise<Pending[]> {
    let rows: Record<string, unknown>[];
    try {
      this.client ??= this.connect();
      const client = await this.client;
      if (batch.length === 1 && batch[0].kind === 'release') {
        const [p] = batch;
        await client.query({
          name: 'llm-release-credit',
          text: RELEASE,
          values: [p.ord, p.guildId, p.day, p.micros, this.instanceId],
        });
        p.resolve('admitted');
        return [];
      }
      if (batch.length === 1) {
        const [p] = batch;
        ({ rows } = await client.query({
          name: 'llm-reserve-one',
          text: RESERVE_ONE,
          values: [
            p.ord,
            p.guildId,
            p.day,
            p.micros,
            p.configured.guildMicros ?? null,
            p.configured.defaultMicros,
            this.instanceId,
            p.margin,
          ],
        }));
        const [r] = rows;
        p.resolve(r.missing ? 'missing' : r.admitted ? 'admitted' : 'refused');
        return [];
      }
      ({ rows } = await client.query({
        name: 'llm-reserve-batch',
        text: RESERVE_BATCH,
        values: [
          batch.map((p) => p.ord),
          batch.map((p) => p.guildId),
          batch.map((p) => p.day),
          batch.map((p) => p.micros),
          batch.map((p) => p.configured.guildMicros ?? null),
          batch.map((p) => p.configured.defaultMicros),
          this.instanceId,
        ],
      }));
    } catch (e) {
      // A broken connection is replaced on the next batch; these requests fail (their
      // callers see a gateway error, nothing was reserved).
      const c = this.client;
      this.client = undefined;
      if (c) void c.then((x) => this.release(x)).catch(() => undefined);
      this.log.warn(`reservation batch failed: ${(e as Error).message}`);
      for (const p of batch) p.reject(e as Error);
      return [];
    }
    const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
    const again: Pending[] = [];
    for (const p of batch) {
      const r = byOrd.get(p.ord)!;
      if (r.missing) p.resolve('missing');
      else if (r.planned && r.applied) p.resolve('admitted');
      // planned but the re-check under the lock failed; or refused only because a bigger
      // request before it in the batch did not fit
      else if (r.planned || Number(r.room) >= p.micros) again.push(p);
      else p.resolve('refused');
    }
    return again;
  }
}
