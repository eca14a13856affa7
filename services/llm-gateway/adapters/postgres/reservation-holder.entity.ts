import { BigIntType, Entity, EntityRepositoryType, PrimaryKey, Property } from '@mikro-orm/core';
import { ReservationHolderRepository } from './reservation-holder.repository';

/** The part of a guild day's reservations one gateway instance holds. */
@Entity({ tableName: 'llm_reservation_holder', repository: () => ReservationHolderRepository })
export class ReservationHolder {
  [EntityRepositoryType]?: ReservationHolderRepository;

  @PrimaryKey({ type: 'string', length: 64 })
  guildId: string;

  /** `YYYY-MM-DD` (UTC). */
  @PrimaryKey({ type: 'date' })
  day: string;

  @PrimaryKey({ type: 'uuid' })
  instanceId: string;

  @Property({ type: new BigIntType('number'), columnType: 'bigint' })
  reservedMicros = 0;
}
