import { LockMode } from '@mikro-orm/core';
import { EntityRepository } from '@mikro-orm/postgresql';
import type { ReservationHolder } from './reservation-holder.entity';

/** A guild's day, the key of spend rows and of what is reserved or released on them. */
export interface GuildDay {
  guildId: string;
  day: string;
}

export type Released = GuildDay & { micros: number };

export class ReservationHolderRepository extends EntityRepository<ReservationHolder> {
  /** Removes what the instances hold; returns it summed per guild day. */
  async takeAll(instanceIds: string[]): Promise<Released[]> {
    const held = await this.find(
      { instanceId: { $in: instanceIds } },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const sums = new Map<string, Released>();
    for (const h of held) {
      const key = `${h.guildId}\u0000${h.day}`;
      const s = sums.get(key) ?? { guildId: h.guildId, day: h.day, micros: 0 };
      s.micros += h.reservedMicros;
      sums.set(key, s);
    }
    this.getEntityManager().remove(held);
    return [...sums.values()].filter((s) => s.micros > 0);
  }

  /** Lowers this instance's share of each guild day by what its settlements released. */
  async release(instanceId: string, released: Released[]): Promise<void> {
    if (!released.length) return;
    const held = await this.find({
      instanceId,
      $or: released.map(({ guildId, day }) => ({ guildId, day })),
    });
    for (const h of held) {
      const r = released.find((x) => x.guildId === h.guildId && x.day === h.day);
      if (r) h.reservedMicros = Math.max(0, h.reservedMicros - r.micros);
    }
  }
}
