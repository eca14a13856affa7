import { LockMode } from '@mikro-orm/core';
import { EntityRepository } from '@mikro-orm/postgresql';
import type { Micros } from '@dirigent/llm';
import type { GuildSpend } from './guild-spend.entity';
import { DEFAULT_BUDGET_ROW, type ConfiguredLimits } from '../../application/ports';
import type { GuildDay } from './reservation-holder.repository';

const LIMIT_MICROS = `coalesce(
  (select round(usd_per_day * 1000000)::bigint from llm_guild_budget where guild_id = ?),
  ?::bigint,
  (select round(usd_per_day * 1000000)::bigint from llm_guild_budget where guild_id = '${DEFAULT_BUDGET_ROW}'),
  ?::bigint)`;

// `set_config(..., true)` is SET LOCAL: the statement's own transaction commits without
// waiting for the WAL flush (a reservation is short-lived; atomicity and row locks are
// unchanged). Settlements and the ledger commit synchronously.
const RESERVE = `with async_commit as (select set_config('synchronous_commit', 'off', true)),
  admitted as (
    update llm_guild_spend set reserved_micros = reserved_micros + ?, updated_at = now()
    where guild_id = ? and day = ? and spent_micros + reserved_micros + ? <= ${LIMIT_MICROS}
      and exists (select 1 from async_commit)
    returning guild_id, day)
  insert into llm_reservation_holder (guild_id, day, instance_id, reserved_micros)
  select guild_id, day, ?::uuid, ? from admitted
  on conflict (guild_id, day, instance_id)
    do update set reserved_micros = llm_reservation_holder.reserved_micros + excluded.reserved_micros
  returning 1 as ok`;

export class GuildSpendRepository extends EntityRepository<GuildSpend> {
  /**
   * Admits `micros` for the guild's day when spent + reserved + micros stays within its
   * limit, and records the share `instanceId` holds, in one conditional UPDATE: Postgres
   * re-checks the condition under the row lock, so no number of concurrent requests or
   * replicas admits more than the limit. False when it does not fit or the day's row
   * does not exist yet.
   *
   * Raw SQL because this is the request path. Measured on the dev machine (2 shared
   * cores under load, local Postgres, 2,000 sequential reservations of one guild, two
   * rounds): this statement 1.30 / 1.12 ms each; the same through the unit of work (a
   * transaction: `findOne` with a pessimistic lock, the limit lookup, the holder lookup
   * or create, flush) 15.9 / 9.7 ms each.
   */
  async reserve(
    { guildId, day }: GuildDay,
    micros: Micros,
    instanceId: string,
    configured: ConfiguredLimits,
  ): Promise<boolean> {
    const limit = [guildId, configured.guildMicros ?? null, configured.defaultMicros];
    const rows = await this.getEntityManager()
      .getConnection()
      .execute(RESERVE, [micros, guildId, day, micros, ...limit, instanceId, micros], 'all');
    return rows.length > 0;
  }

  /** Creates the days' rows that do not exist yet (concurrent creators are fine). */
  async ensure(days: GuildDay[]): Promise<void> {
    if (!days.length) return;
    await this.createQueryBuilder()
      .insert(days.map((d) => ({ guildId: d.guildId, day: d.day })))
      .onConflict(['guildId', 'day'])
      .ignore()
      .execute();
  }

  /** The days' rows, locked in one order so concurrent batches and reapers never deadlock. */
  lockInOrder(days: GuildDay[]): Promise<GuildSpend[]> {
    if (!days.length) return Promise.resolve([]);
    return this.find(
      { $or: days.map(({ guildId, day }) => ({ guildId, day })) },
      { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { guildId: 'asc', day: 'asc' } },
    );
  }

  /** The guild's latest days, newest first. */
  history(guildId: string, days: number): Promise<GuildSpend[]> {
    return this.find({ guildId }, { orderBy: { day: 'desc' }, limit: days });
  }
}
