import { LockMode } from '@mikro-orm/core';
import { EntityRepository } from '@mikro-orm/postgresql';
import type { GuildSpend } from './guild-spend.entity';
import type { GuildDay } from './reservation-holder.repository';

export class GuildSpendRepository extends EntityRepository<GuildSpend> {
  /** Creates the days' rows that do not exist yet (concurrent creators are fine). */
  async ensure(days: GuildDay[]): Promise<void> {
    if (!days.length) return;
    await this.createQueryBuilder()
      .insert(days.map((d) => ({ guildId: d.guildId, day: d.day })))
      .onConflict(['guildId', 'day'])
      .ignore()
      .execute();
  }

  /** The days' rows, locked in one order so concurrent batches and reapers never deadlock. */
  lockInOrder(days: GuildDay[]): Promise<GuildSpend[]> {
    if (!days.length) return Promise.resolve([]);
    return this.find(
      { $or: days.map(({ guildId, day }) => ({ guildId, day })) },
      { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { guildId: 'asc', day: 'asc' } },
    );
  }

  /** The guild's latest days, newest first. */
  history(guildId: string, days: number): Promise<GuildSpend[]> {
    return this.find({ guildId }, { orderBy: { day: 'desc' }, limit: days });
  }
}
