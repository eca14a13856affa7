import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** A built-in agent's delivered message and the disposition that produced it (learning's key). */
@Entity({ tableName: 'persona_messages' })
export class PersonaMessageRow {
  @PrimaryKey({ length: 20 }) messageId: string;
  @Property({ length: 64 }) agentId: string;
  @Property({ length: 64 }) dispositionId: string;
  @Property({ length: 64 }) decisionId: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  /** The room's mood its decision was made in (absent for messages from before). */
  @Property({ length: 8, nullable: true }) contextClass?: string | null;
  /** Its text (absent for messages from before): what a later message may quote. */
  @Property({ type: 'text', nullable: true }) content?: string | null;
  @Property({ columnType: 'timestamptz' }) at: Date;
}
