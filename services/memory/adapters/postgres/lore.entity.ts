import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { LoreRepository } from './lore.repository';

/** A piece of group lore (paraphrase by design), with a validity window. */
@Entity({ tableName: 'memory_lore', repository: () => LoreRepository })
export class MemoryLore {
  @PrimaryKey({ length: 80 }) id: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ type: 'text' }) text: string;
  @Property({ length: 64, nullable: true }) sourceEpochId: string | null;
  @Property({ columnType: 'timestamptz' }) validFrom: Date;
  @Property({ columnType: 'timestamptz', nullable: true }) validUntil: Date | null;
  @Property({ length: 80, nullable: true }) supersededBy: string | null;
}
