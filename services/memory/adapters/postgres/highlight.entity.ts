import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { HighlightRepository } from './highlight.repository';

/** A moment kept verbatim: `rawText` is what was written, never a paraphrase. */
@Entity({ tableName: 'memory_highlight', repository: () => HighlightRepository })
export class MemoryHighlightRow {
  @PrimaryKey({ length: 40 }) id: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  @Property({ length: 20 }) messageId: string;
  @Property({ length: 20 }) authorId: string;
  @Property({ length: 100, nullable: true }) authorName: string | null;
  @Property({ type: 'text' }) rawText: string;
  @Property({ length: 32 }) kind: string;
  @Property({ type: 'float' }) score: number;
  @Property({ columnType: 'timestamptz' }) at: Date;
}
