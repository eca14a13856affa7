import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** One registered agent identity (projection of the identity registry aggregate). */
@Entity({ tableName: 'tc_identity' })
export class IdentityRow {
  @PrimaryKey({ type: 'string', length: 20 })
  discordUserId: string;

  @Property({ type: 'string', length: 64, unique: true })
  agentId: string;

  @Property({ type: 'string', length: 80, nullable: true })
  agentName: string | null = null;

  /** Where the entry came from: admin, tool, import or padded-cell. */
  @Property({ type: 'string', length: 20 })
  source: string;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}
