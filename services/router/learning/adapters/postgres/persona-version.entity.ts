import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { PersonaContent } from '@dirigent/router-domain';

/**
 * One version of a built-in agent's persona; the latest is the active one
 * (Migration20261128031000_personas).
 */
@Entity({ tableName: 'persona_versions' })
export class PersonaVersionRow {
  @PrimaryKey({ length: 64 }) agentId: string;
  @PrimaryKey() version: number;
  @Property({ type: 'json' }) content: PersonaContent;
  @Property({ length: 16 }) cause: string;
  @Property({ length: 200, nullable: true }) causeId: string | null = null;
  @Property({ columnType: 'timestamptz' }) at: Date;
}
