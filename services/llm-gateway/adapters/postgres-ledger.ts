import type { EntityManager } from '@mikro-orm/postgresql';
import { usdToMicros, type UsageRecord } from '@dirigent/llm';
import { GuildSpend } from './postgres/guild-spend.entity';

/** A usage record as the ledger consumer received it: with the instance that holds its reservation. */
export interface LedgerEntry {
  record: UsageRecord;
  /** The gateway instance whose reservation the call used; absent: nothing to release. */
  instanceId?: string;
}

// One statement for a whole batch, atomic: the ledger rows are inserted (a row already
// there — a redelivery — is skipped), and only the rows inserted now settle: their guild
// days are locked first, in key order (as the reservation batches lock them, so the two
// never deadlock), then the holders' shares and the days' rows are updated. A share that
// is gone (reaped: its instance was declared dead and everything it held already released)
// releases nothing, so nothing is released twice. It commits without waiting for the WAL
// flush, so a guild's row is locked for microseconds, not for a disk flush; DURABLE then
// waits for that flush before anything is acknowledged.
const APPLY = `with async_commit as (select set_config('synchronous_commit', 'off', true)),
  input as (
    select * from json_to_recordset(?::json) as r(
      id uuid, at timestamptz, guild_id text, purpose text, kind text, stream boolean,
      requested_model text, model text, provider text, input_tokens int, output_tokens int,
      reserved_usd numeric, cost_usd numeric, latency_ms int, outcome text, error text,
      fallbacks jsonb, attempts int, day date, instance_id uuid, released bigint, spent bigint)
    where exists (select 1 from async_commit)),
  inserted as (
    insert into llm_usage (id, at, guild_id, purpose, kind, stream, requested_model, model,
      provider, input_tokens, output_tokens, reserved_usd, cost_usd, latency_ms, outcome, error,
      fallbacks, attempts)
    select id, at, guild_id, purpose, kind, stream, requested_model, model, provider,
      input_tokens, output_tokens, reserved_usd, cost_usd, latency_ms, outcome, error,
      coalesce(fallbacks, '[]'::jsonb), attempts
    from input
    on conflict (id) do nothing
    returning id),
  r as (
    select i.guild_id, i.day, i.instance_id, sum(i.released)::bigint as released,
      sum(i.spent)::bigint as spent
    from input i join inserted n on n.id = i.id
    where i.released > 0 or i.spent > 0
    group by 1, 2, 3),
  days as (select guild_id, day, sum(spent)::bigint as spent from r group by 1, 2),
  locked as (
    select s.guild_id, s.day from llm_guild_spend s
    where (s.guild_id, s.day) in (select guild_id, day from days)
    order by s.guild_id, s.day
    for update of s),
  hold as (
    select h.guild_id, h.day, h.instance_id, h.reserved_micros from llm_reservation_holder h
    where (h.guild_id, h.day, h.instance_id) in (select guild_id, day, instance_id from r)
      and (select count(*) from locked) >= 0
    order by 1, 2, 3
    for update of h),
  holders as (
    update llm_reservation_holder h
    set reserved_micros = hold.reserved_micros - least(hold.reserved_micros, r.released)
    from hold join r using (guild_id, day, instance_id)
    where h.guild_id = hold.guild_id and h.day = hold.day and h.instance_id = hold.instance_id
    returning h.guild_id, h.day, least(hold.reserved_micros, r.released) as released),
  spend as (
    update llm_guild_spend s
    set reserved_micros = greatest(0, s.reserved_micros - coalesce(
        (select sum(x.released) from holders x where x.guild_id = s.guild_id and x.day = s.day), 0)),
      spent_micros = s.spent_micros + d.spent, updated_at = now()
    from days d
    where s.guild_id = d.guild_id and s.day = d.day
    returning 1)
  select (select count(*) from inserted)::int as inserted, (select count(*) from spend)::int as days`;

// A transaction that commits synchronously: it returns once the WAL is on disk up to its
// own commit, which lies after every earlier commit (the batch's included).
const DURABLE = `select txid_current()`;

/**
 * The usage ledger in Postgres: applies a batch of usage records — ledger rows and the
 * settlements they carry (the reservation released from the instance's share, the cost
 * booked) — in one statement, idempotent by record id, and returns once it is durable.
 */
export class PostgresLedger {
  constructor(private readonly em: EntityManager) {}

  /** Applies the entries; returns how many were new. */
  async apply(entries: LedgerEntry[]): Promise<number> {
    if (!entries.length) return 0;
    const rows = entries.map(({ record: u, instanceId }) => ({
      id: u.id,
      at: u.at,
      guild_id: u.guildId,
      purpose: u.purpose,
      kind: u.kind,
      stream: u.stream,
      requested_model: u.requestedModel,
      model: u.model,
      provider: u.provider,
      input_tokens: u.inputTokens,
      output_tokens: u.outputTokens,
      reserved_usd: u.reservedUsd,
      cost_usd: u.costUsd,
      latency_ms: u.latencyMs,
      outcome: u.outcome,
      error: u.error ?? null,
      fallbacks: u.fallbacks,
      attempts: u.attempts,
      day: u.at.slice(0, 10),
      instance_id: instanceId ?? null,
      released: usdToMicros(u.reservedUsd),
      spent: usdToMicros(u.costUsd),
    }));
    const em = this.em.fork();
    const days = new Map<string, { guildId: string; day: string }>();
    for (const r of rows)
      if (r.released > 0 || r.spent > 0)
        days.set(`${r.guild_id}\u0000${r.day}`, { guildId: r.guild_id, day: r.day });
    // A settlement follows a reservation, so its day's row exists; made sure of anyway.
    await em
      .getRepository(GuildSpend)
      .ensure([...days.values()].sort((a, b) => (a.guildId + a.day < b.guildId + b.day ? -1 : 1)));
    // The batch goes to Postgres as a bound parameter: the ORM's `execute` would first
    // inline it into the statement's text, escaping it a character at a time in JS.
    const knex = em.getConnection().getKnex();
    const res = (await knex.raw(APPLY, [JSON.stringify(rows)])) as {
      rows: { inserted: number }[];
    };
    await knex.raw(DURABLE);
    return Number(res.rows[0]?.inserted ?? 0);
  }
}
