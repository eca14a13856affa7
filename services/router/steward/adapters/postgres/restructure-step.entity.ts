import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One step of an approved restructure as far as it ran (`steward_restructure_step`,
 * Migration20261207000000_steward_restructure_steps): `started` before its Discord calls,
 * `done` or `failed` after them.
 */
@Entity({ tableName: 'steward_restructure_step' })
export class RestructureStepRow {
  @PrimaryKey({ type: 'string', length: 64 })
  proposalId: string;

  @PrimaryKey({ type: 'integer' })
  stepIndex: number;

  @Property({ type: 'string', length: 16 })
  status: string;

  @Property({ type: 'string', length: 300 })
  text: string;

  @Property({ type: 'json', nullable: true })
  result: unknown = null;

  @Property({ type: 'string', length: 500, nullable: true })
  error: string | null = null;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  updatedAt: Date;
}
