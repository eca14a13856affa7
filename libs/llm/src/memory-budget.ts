import type { BudgetStore, ReserveResult } from './ports';
import type { Micros } from './pricing';

/**
 * A single-process {@link BudgetStore} for unit tests and tools; the service uses the
 * Postgres one, which holds across replicas.
 */
export class MemoryBudgetStore implements BudgetStore {
  readonly rows = new Map<string, { spent: Micros; reserved: Micros }>();
  readonly limits = new Map<string, Micros>();

  async reserve(
    guildId: string,
    day: string,
    micros: Micros,
    configured: { guildMicros?: Micros; defaultMicros: Micros },
  ): Promise<ReserveResult> {
    const key = `${guildId}/${day}`;
    const row = this.rows.get(key) ?? { spent: 0, reserved: 0 };
    const limit = this.limits.get(guildId) ?? configured.guildMicros ?? configured.defaultMicros;
    if (row.spent + row.reserved + micros > limit)
      return {
        ok: false,
        spentMicros: row.spent,
        reservedMicros: row.reserved,
        limitMicros: limit,
      };
    row.reserved += micros;
    this.rows.set(key, row);
    return { ok: true };
  }

  async settle(guildId: string, day: string, reserved: Micros, actual: Micros): Promise<void> {
    const key = `${guildId}/${day}`;
    const row = this.rows.get(key) ?? { spent: 0, reserved: 0 };
    row.reserved = Math.max(0, row.reserved - reserved);
    row.spent += actual;
    this.rows.set(key, row);
  }
}
