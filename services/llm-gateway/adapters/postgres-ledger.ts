import { EntityManager } from '@mikro-orm/postgresql';
import type { UsageRecord } from '@dirigent/llm';
import { GuildSpend } from './postgres/guild-spend.entity';
import { ReservationHolder } from './postgres/reservation-holder.entity';
import { UsageEntry } from './postgres/usage-entry.entity';
import type { LedgerWriter, Settlement } from './write-behind';

/** One batch of settlements and ledger rows in one transaction with a durable commit. */
export class PostgresLedger implements LedgerWriter {
  constructor(
    private readonly em: EntityManager,
    private readonly instanceId: string,
  ) {}

  write(settlements: Settlement[], records: UsageRecord[]): Promise<void> {
    return this.em.fork().transactional(async (em) => {
      await em.execute(`set local synchronous_commit = on`);
      if (settlements.length) {
        const spend = em.getRepository(GuildSpend);
        await spend.ensure(settlements);
        for (const row of await spend.lockInOrder(settlements)) {
          const s = settlements.find((x) => x.guildId === row.guildId && x.day === row.day)!;
          row.reservedMicros = Math.max(0, row.reservedMicros - s.released);
          row.spentMicros += s.spent;
        }
        await em.getRepository(ReservationHolder).release(
          this.instanceId,
          settlements.map((s) => ({ guildId: s.guildId, day: s.day, micros: s.released })),
        );
      }
      await em.getRepository(UsageEntry).append(records);
    });
  }
}
