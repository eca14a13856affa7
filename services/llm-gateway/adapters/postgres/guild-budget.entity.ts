import { DecimalType, Entity, EntityRepositoryType, PrimaryKey, Property } from '@mikro-orm/core';
import { GuildBudgetRepository } from './guild-budget.repository';

/** A daily limit set at run time; guild `*` holds the default of every guild. */
@Entity({ tableName: 'llm_guild_budget', repository: () => GuildBudgetRepository })
export class GuildBudget {
  [EntityRepositoryType]?: GuildBudgetRepository;

  @PrimaryKey({ type: 'string', length: 64 })
  guildId: string;

  @Property({ type: new DecimalType('number'), columnType: 'numeric(18,6)' })
  usdPerDay: number;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}
