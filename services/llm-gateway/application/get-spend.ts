import { Inject, Injectable } from '@nestjs/common';
import { usdToMicros } from '@dirigent/llm';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { LlmGatewayConfig } from '../config';
import { guildKey } from './budget-key';
import { invalid } from './invalid';
import { SpendReports } from './ports';

/** A guild's spend per day, newest first, with the limit that applies. */
@Injectable()
export class GetSpend {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: LlmGatewayConfig,
    private readonly reports: SpendReports,
  ) {}

  async run(guild: string, daysParam?: string) {
    guildKey(guild, false);
    const days = daysParam === undefined ? 7 : Number(daysParam);
    if (!Number.isInteger(days) || days < 1 || days > 366) throw invalid('days', 'must be 1-366');
    const b = this.config.llm.budgets;
    const configured = b.guilds[guild];
    return {
      guildId: guild,
      days: await this.reports.spend(guild, days, {
        guildMicros: configured === undefined ? undefined : usdToMicros(configured),
        defaultMicros: usdToMicros(b.defaultGuildUsdPerDay),
      }),
    };
  }
}
