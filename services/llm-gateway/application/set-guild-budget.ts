import { Injectable } from '@nestjs/common';
import { guildKey } from './budget-key';
import { BudgetLimits } from './ports';

/** Sets a guild's daily limit (`default`: every guild's), over the configuration's. */
@Injectable()
export class SetGuildBudget {
  constructor(private readonly limits: BudgetLimits) {}

  async run(guild: string, usdPerDay: number) {
    await this.limits.set(guildKey(guild), usdPerDay);
    return { guildId: guild, usdPerDay };
  }
}
