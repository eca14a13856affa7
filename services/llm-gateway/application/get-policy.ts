import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { LlmGatewayConfig } from '../config';
import { BudgetLimits, DEFAULT_BUDGET_ROW, PurposeRoutes } from './ports';

/** The policy in force: purposes (with the overrides), budgets and the models. */
@Injectable()
export class GetPolicy {
  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: LlmGatewayConfig,
    private readonly routes: PurposeRoutes,
    private readonly limits: BudgetLimits,
  ) {}

  async run() {
    const { [DEFAULT_BUDGET_ROW]: storedDefault, ...storedGuilds } = await this.limits.list();
    return {
      purposes: this.routes.purposes(),
      overrides: this.routes.overridden(),
      budgets: {
        defaultGuildUsdPerDay: storedDefault ?? this.config.llm.budgets.defaultGuildUsdPerDay,
        guilds: { ...this.config.llm.budgets.guilds, ...storedGuilds },
      },
      models: this.config.llm.models.map((m) => m.id),
    };
  }
}
