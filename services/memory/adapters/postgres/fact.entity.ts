import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { DossierRepository } from './dossier.repository';

/** A dossier fact with its validity window; closed when contradicted, never deleted. */
@Entity({ tableName: 'memory_fact', repository: () => DossierRepository })
export class MemoryFact {
  @PrimaryKey({ length: 80 }) id: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) userId: string;
  @Property({ length: 80 }) key: string;
  @Property({ length: 200 }) value: string;
  @Property({ type: 'text' }) statement: string;
  @Property({ length: 20, nullable: true }) sourceMessageId: string | null;
  @Property({ length: 20, nullable: true }) channelId: string | null;
  @Property({ columnType: 'timestamptz' }) validFrom: Date;
  @Property({ columnType: 'timestamptz', nullable: true }) validUntil: Date | null;
  @Property({ length: 80, nullable: true }) supersededBy: string | null;
}
