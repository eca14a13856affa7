import { EntityRepository } from '@mikro-orm/postgresql';
import { usdToMicros, type Micros } from '@dirigent/llm';
import { DEFAULT_BUDGET_ROW, type ConfiguredLimits } from '../../application/ports';
import type { GuildBudget } from './guild-budget.entity';

export class GuildBudgetRepository extends EntityRepository<GuildBudget> {
  async list(): Promise<Record<string, number>> {
    const rows = await this.findAll();
    return Object.fromEntries(rows.map((r) => [r.guildId, r.usdPerDay]));
  }

  async put(guildId: string, usdPerDay: number): Promise<void> {
    await this.getEntityManager().upsert(this.getEntityName(), {
      guildId,
      usdPerDay,
      updatedAt: new Date(),
    });
  }

  async delete(guildId: string): Promise<boolean> {
    return (await this.nativeDelete({ guildId })) > 0;
  }

  /** The guild's row, else the configured guild limit, else the `*` row, else the configured default. */
  async limitMicros(guildId: string, configured: ConfiguredLimits): Promise<Micros> {
    const rows = await this.find({ guildId: { $in: [guildId, DEFAULT_BUDGET_ROW] } });
    const stored = (id: string) => rows.find((r) => r.guildId === id)?.usdPerDay;
    const own = stored(guildId);
    if (own !== undefined) return usdToMicros(own);
    if (configured.guildMicros !== undefined) return configured.guildMicros;
    const fallback = stored(DEFAULT_BUDGET_ROW);
    return fallback !== undefined ? usdToMicros(fallback) : configured.defaultMicros;
  }
}
