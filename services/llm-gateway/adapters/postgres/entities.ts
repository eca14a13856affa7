import { GatewayInstance } from './gateway-instance.entity';
import { GuildBudget } from './guild-budget.entity';
import { GuildSpend } from './guild-spend.entity';
import { PurposePolicy } from './purpose-policy.entity';
import { ReservationHolder } from './reservation-holder.entity';
import { UsageEntry } from './usage-entry.entity';

/** The gateway's tables (migrations in libs/persistence). */
export const llmGatewayEntities = [
  GuildSpend,
  GuildBudget,
  PurposePolicy,
  GatewayInstance,
  ReservationHolder,
  UsageEntry,
];
