import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** The last stream sequence a projection applied, written in the same transaction as its rows. */
@Entity({ tableName: 'projection_checkpoint' })
export class ProjectionCheckpoint {
  @PrimaryKey({ type: 'string', length: 200 })
  name: string;

  @Property({ type: 'bigint', columnType: 'bigint' })
  lastSeq: string;

  /** The event store stream's creation time the sequence belongs to (null: not yet known). */
  @Property({ type: 'string', length: 64, nullable: true })
  streamCreated?: string | null;

  @Property({ type: 'Date', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}
