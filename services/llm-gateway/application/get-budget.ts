import { Inject, Injectable } from '@nestjs/common';
import { budgetDay } from '@dirigent/llm';
import type { LlmBudgetView } from '@dirigent/contracts';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { LlmGatewayConfig } from '../config';
import { BudgetLimits, DEFAULT_BUDGET_ROW, SpendReports } from './ports';

const DAY_MS = 86_400_000;
const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

/**
 * `Subjects.llm.budgetGet`: today's envelope of a guild — its limit (run-time override,
 * then the configuration's, then the defaults, as reservations resolve it), what it spent
 * and what is left once open reservations are counted.
 */
@Injectable()
export class GetBudget {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: LlmGatewayConfig,
    private readonly reports: SpendReports,
    private readonly limits: BudgetLimits,
  ) {}

  /** The daily limit of a guild, from the stored limits (`list()`) and the configuration. */
  private limit(stored: Record<string, number>, guildId: string): number {
    const b = this.config.llm.budgets;
    return (
      stored[guildId] ?? b.guilds[guildId] ?? stored[DEFAULT_BUDGET_ROW] ?? b.defaultGuildUsdPerDay
    );
  }

  /**
   * Today's share of each spending guild's limit (settled plus reserved; 1 = the limit
   * reached), for the `dirigent_llm_budget_used_ratio` gauge.
   */
  async usedToday(now = Date.now()): Promise<{ guildId: string; usedRatio: number }[]> {
    const stored = await this.limits.list();
    const rows = await this.reports.day(budgetDay(now));
    return rows.map((r) => {
      const limit = this.limit(stored, r.guildId);
      const used = r.spentUsd + r.reservedUsd;
      return { guildId: r.guildId, usedRatio: limit > 0 ? used / limit : used > 0 ? 1 : 0 };
    });
  }

  async run(guildId: string, now = Date.now()): Promise<LlmBudgetView> {
    const usdPerDay = this.limit(await this.limits.list(), guildId);
    const day = budgetDay(now);
    const [latest] = await this.reports.spend(guildId, 1, { defaultMicros: 0 });
    const today = latest?.day === day ? latest : undefined;
    const spentUsd = round(today?.spentUsd ?? 0);
    const held = today?.reservedUsd ?? 0;
    return {
      usdPerDay,
      spentUsd,
      remainingUsd: round(Math.max(0, usdPerDay - spentUsd - held)),
      periodEnd: new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS).toISOString(),
    };
  }
}
