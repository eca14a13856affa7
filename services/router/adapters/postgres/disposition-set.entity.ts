import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { Disposition } from '@dirigent/router-domain';

/**
 * A disposition set as a decision's scores read it, by content address
 * (`dispositionSetId`; Migration20261127230000_decision_inputs).
 */
@Entity({ tableName: 'disposition_sets' })
export class DispositionSetRow {
  @PrimaryKey({ length: 40 }) id: string;
  @Property({ type: 'json' }) dispositions: Disposition[];
  @Property({ columnType: 'timestamptz' }) createdAt: Date = new Date();
}
