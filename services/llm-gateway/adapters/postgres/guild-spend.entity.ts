import {
  BigIntType,
  Entity,
  EntityRepositoryType,
  OptionalProps,
  PrimaryKey,
  Property,
} from '@mikro-orm/core';
import { GuildSpendRepository } from './guild-spend.repository';

/** A guild's spend on one UTC day: settled cost and what in-flight calls have reserved. */
@Entity({ tableName: 'llm_guild_spend', repository: () => GuildSpendRepository })
export class GuildSpend {
  [EntityRepositoryType]?: GuildSpendRepository;
  [OptionalProps]?: 'spentMicros' | 'reservedMicros' | 'updatedAt';

  @PrimaryKey({ type: 'string', length: 64 })
  guildId: string;

  /** `YYYY-MM-DD` (UTC). */
  @PrimaryKey({ type: 'date' })
  day: string;

  @Property({ type: new BigIntType('number'), columnType: 'bigint' })
  spentMicros = 0;

  @Property({ type: new BigIntType('number'), columnType: 'bigint' })
  reservedMicros = 0;

  @Property({ type: 'Date', columnType: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
