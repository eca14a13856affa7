import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { DossierRepository } from './dossier.repository';

/** A user's dossier in a guild: counters, the curated body and its signals. */
@Entity({ tableName: 'memory_dossier', repository: () => DossierRepository })
export class MemoryDossierRow {
  @PrimaryKey({ length: 20 }) guildId: string;
  @PrimaryKey({ length: 20 }) userId: string;
  @Property({ length: 100, nullable: true }) userName: string | null;
  @Property({ type: 'text' }) body: string;
  @Property({ type: 'json' }) signals: Record<string, unknown>;
  @Property() messageCount: number;
  @Property() messagesSince: number;
  @Property() charsSince: number;
  @Property({ columnType: 'timestamptz', nullable: true }) lastSeenAt: Date | null;
  @Property({ columnType: 'timestamptz', nullable: true }) lastConsolidatedAt: Date | null;
}
