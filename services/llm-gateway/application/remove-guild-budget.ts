import { Injectable } from '@nestjs/common';
import { guildKey } from './budget-key';
import { BudgetLimits } from './ports';

/** Drops a guild's run-time limit: the configuration's applies again. */
@Injectable()
export class RemoveGuildBudget {
  constructor(private readonly limits: BudgetLimits) {}

  async run(guild: string) {
    return { removed: await this.limits.remove(guildKey(guild)) };
  }
}
