import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';
import type { ProposalView } from '@dirigent/contracts';

/** A proposal as last projected (`steward_proposal`, Migration20261128021000_steward_proposals). */
@Entity({ tableName: 'steward_proposal' })
@Index({ properties: ['guildId', 'status'] })
export class ProposalRow {
  @PrimaryKey({ type: 'string', length: 64 })
  proposalId: string;

  @Property({ type: 'string', length: 20 })
  guildId: string;

  @Property({ type: 'string', length: 16 })
  status: string;

  @Property({ type: 'string', length: 20, nullable: true })
  @Index()
  messageId: string | null = null;

  /** The aggregate version (event store sequence) the row reflects. */
  @Property({ type: 'bigint' })
  version: string;

  @Property({ type: 'json' })
  view: ProposalView;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  createdAt: Date;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  updatedAt: Date;
}
