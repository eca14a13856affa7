import type { Micros, PurposeRoute } from '@dirigent/llm';

/** The `llm_guild_budget` row that holds the run-time default for every guild. */
export const DEFAULT_BUDGET_ROW = '*';

/** Limits the configuration file sets for one guild, which stored limits override. */
export interface ConfiguredLimits {
  guildMicros?: Micros;
  defaultMicros: Micros;
}

/** Daily limits set at run time; `*` is the default row. */
export abstract class BudgetLimits {
  abstract list(): Promise<Record<string, number>>;
  abstract set(guildId: string, usdPerDay: number): Promise<void>;
  abstract remove(guildId: string): Promise<boolean>;
}

/** The purpose routes in force: the configuration's, overridden at run time. */
export abstract class PurposeRoutes {
  abstract purposes(): Record<string, PurposeRoute>;
  abstract overridden(): Record<string, PurposeRoute>;
  /** Why a route cannot be used (it names unconfigured models), if it cannot. */
  abstract validate(route: PurposeRoute): string | undefined;
  abstract set(purpose: string, route: PurposeRoute): Promise<void>;
  abstract remove(purpose: string): Promise<boolean>;
}

export interface DaySpend {
  day: string;
  spentUsd: number;
  reservedUsd: number;
  limitUsd: number;
}

export interface UsageLine {
  purpose: string | null;
  model: string | null;
  outcome: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  avgLatencyMs: number;
}

/** What guilds spent, per day and per ledger line. */
export abstract class SpendReports {
  abstract spend(guildId: string, days: number, configured: ConfiguredLimits): Promise<DaySpend[]>;
  abstract usage(guildId: string, day: string): Promise<UsageLine[]>;
  /** Every guild with a row on `day`: settled and reserved USD. */
  abstract day(day: string): Promise<{ guildId: string; spentUsd: number; reservedUsd: number }[]>;
}
