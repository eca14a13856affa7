import { Injectable } from '@nestjs/common';
import { budgetDay } from '@dirigent/llm';
import { guildKey } from './budget-key';
import { invalid } from './invalid';
import { SpendReports } from './ports';

/** A guild's ledger totals of one UTC day by purpose, model and outcome. */
@Injectable()
export class GetUsage {
  constructor(private readonly reports: SpendReports) {}

  async run(guild: string, dayParam?: string) {
    guildKey(guild, false);
    const day = dayParam ?? budgetDay(Date.now());
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day)))
      throw invalid('day', 'must be a date (YYYY-MM-DD)');
    return { guildId: guild, day, usage: await this.reports.usage(guild, day) };
  }
}
