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
import type { BatchedReservations } from './postgres/reservation-batch';

/**
 * Budgets in Postgres, one row per guild and UTC day, reserved atomically across every
 * replica in group-committed batches (see {@link BatchedReservations}). No `settle`: a
 * call's usage record carries its reservation and cost, and the ledger consumer settles
 * both with the ledger row, exactly once (see `LedgerConsumer`).
 */
export class PostgresBudgets implements BudgetStore, SpendReports {
  constructor(
    private readonly em: EntityManager,
    private readonly batch: BatchedReservations,
  ) {}

  reserveNow(guildId: string, day: string, micros: Micros, configured: ConfiguredLimits): boolean {
    return this.batch.fromCredit({ guildId, day }, micros, configured);
  }

  async reserve(
    guildId: string,
    day: string,
    micros: Micros,
    configured: ConfiguredLimits,
  ): Promise<ReserveResult> {
    const key = { guildId, day };
    let decision = await this.batch.reserve(key, micros, configured);
    if (decision === 'missing') {
      // The day's first request: create its row (concurrent creators are fine), then decide.
      await this.em.fork().getRepository(GuildSpend).ensure([key]);
      decision = await this.batch.reserve(key, micros, configured);
    }
    if (decision === 'admitted') return { ok: true };
    const em = this.em.fork();
    const row = await em.getRepository(GuildSpend).findOne(key, { refresh: true });
    return {
      ok: false,
      spentMicros: row?.spentMicros ?? 0,
      reservedMicros: row?.reservedMicros ?? 0,
      limitMicros: await em.getRepository(GuildBudget).limitMicros(guildId, configured),
    };
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

  async day(day: string) {
    const rows = await this.em.fork().find(GuildSpend, { day });
    return rows.map((r) => ({
      guildId: r.guildId,
      spentUsd: microsToUsd(r.spentMicros),
      reservedUsd: microsToUsd(r.reservedMicros),
    }));
  }

  usage(guildId: string, day: string): Promise<UsageLine[]> {
    return this.em.fork().getRepository(UsageEntry).totals(guildId, day);
  }
}
