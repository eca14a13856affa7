import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * A learning signal on an agent's message, once per message and signal (a redelivery
 * counts once); written by `persona-version.repository.ts` with the version it caused.
 */
@Entity({ tableName: 'persona_signals' })
export class PersonaSignalRow {
  @PrimaryKey({ length: 20 }) messageId: string;
  @PrimaryKey({ length: 200 }) signal: string;
  @Property({ length: 64 }) agentId: string;
  @Property({ length: 64 }) dispositionId: string;
  @Property({ length: 8 }) polarity: string;
  @Property({ type: 'double' }) weightFrom = 0;
  @Property({ type: 'double' }) weightTo = 0;
  @Property({ nullable: true }) version: number | null = null;
  @Property({ columnType: 'timestamptz' }) at: Date;
}
