import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { EpochRepository } from './epoch.repository';

/** A closed conversation epoch: an index over its messages, which stay. */
@Entity({ tableName: 'memory_epoch', repository: () => EpochRepository })
export class MemoryEpochRow {
  @PrimaryKey({ length: 64 }) id: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  @Property({ columnType: 'timestamptz' }) startAt: Date;
  @Property({ columnType: 'timestamptz' }) endAt: Date;
  @Property() messageCount: number;
  @Property({ type: 'json' }) participants: string[];
  @Property({ type: 'text' }) summary: string;
  @Property({ type: 'json' }) topics: string[];
  @Property({ columnType: 'timestamptz', nullable: true }) publishedAt: Date | null;
}
