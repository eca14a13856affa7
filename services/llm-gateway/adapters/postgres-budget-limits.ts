import type { EntityManager } from '@mikro-orm/postgresql';
import type { BudgetLimits } from '../application/ports';
import { GuildBudget } from './postgres/guild-budget.entity';

/** Run-time guild limits in `llm_guild_budget`. */
export class PostgresBudgetLimits implements BudgetLimits {
  constructor(private readonly em: EntityManager) {}

  list(): Promise<Record<string, number>> {
    return this.em.fork().getRepository(GuildBudget).list();
  }

  set(guildId: string, usdPerDay: number): Promise<void> {
    return this.em.fork().getRepository(GuildBudget).put(guildId, usdPerDay);
  }

  remove(guildId: string): Promise<boolean> {
    return this.em.fork().getRepository(GuildBudget).delete(guildId);
  }
}
