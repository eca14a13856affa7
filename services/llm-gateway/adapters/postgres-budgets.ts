import type { EntityManager } from '@mikro-orm/postgresql';
import { microsToUsd, type BudgetStore, type Micros, type ReserveResult } from '@dirigent/llm';
import {
  SpendReports,
  type ConfiguredLimits,
  type DaySpend,
  type UsageLine,
} from '../application/ports';
import { GuildBudget } from './postgres/guild-budget.entity';
import { GuildSpend } from './postgres/guild-spend.entity';
import { UsageEntry } from './postgres/usage-entry.entity';
import type { ReservationHolders } from './reservation-holders';
import type { WriteBehind } from './write-behind';

/**
 * Budgets in Postgres, one row per guild and UTC day, reserved atomically across every
 * replica (see {@link GuildSpendRepository.reserve}); settlements go through the
 * write-behind batch.
 */
export class PostgresBudgets implements BudgetStore, SpendReports {
  constructor(
    private readonly em: EntityManager,
    private readonly writes: WriteBehind,
    private readonly holders: ReservationHolders,
  ) {}

  async reserve(
    guildId: string,
    day: string,
    micros: Micros,
    configured: ConfiguredLimits,
  ): Promise<ReserveResult> {
    const em = this.em.fork();
    const spend = em.getRepository(GuildSpend);
    const key = { guildId, day };
    const instance = this.holders.instanceId;
    let admitted = await spend.reserve(key, micros, instance, configured);
    if (!admitted) {
      // The day's row may not exist yet (or a concurrent request just created it): make
      // sure it does, then decide on it.
      await spend.ensure([key]);
      admitted = await spend.reserve(key, micros, instance, configured);
    }
    if (admitted) return { ok: true };
    const row = await spend.findOne(key, { refresh: true });
    return {
      ok: false,
      spentMicros: row?.spentMicros ?? 0,
      reservedMicros: row?.reservedMicros ?? 0,
      limitMicros: await em.getRepository(GuildBudget).limitMicros(guildId, configured),
    };
  }

  /** Queued: settlements are written in batches by the {@link WriteBehind}. */
  settle(guildId: string, day: string, reserved: Micros, actual: Micros): Promise<void> {
    return this.writes.settle(guildId, day, reserved, actual);
  }

  async spend(guildId: string, days: number, configured: ConfiguredLimits): Promise<DaySpend[]> {
    const em = this.em.fork();
    const limit = await em.getRepository(GuildBudget).limitMicros(guildId, configured);
    const rows = await em.getRepository(GuildSpend).history(guildId, days);
    return rows.map((r) => ({
      day: r.day,
      spentUsd: microsToUsd(r.spentMicros),
      reservedUsd: microsToUsd(r.reservedMicros),
      limitUsd: microsToUsd(limit),
    }));
  }

  usage(guildId: string, day: string): Promise<UsageLine[]> {
    return this.em.fork().getRepository(UsageEntry).totals(guildId, day);
  }
}
