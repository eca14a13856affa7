import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { MessageRepository } from './message.repository';

/** One Discord message of the archive; the live window is the guild's newest rows. */
@Entity({ tableName: 'memory_message', repository: () => MessageRepository })
export class MemoryMessage {
  @PrimaryKey({ type: 'bigint', autoincrement: true }) seq: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) channelId: string;
  @Property({ length: 20 }) messageId: string;
  @Property({ length: 20 }) authorId: string;
  @Property({ length: 100, nullable: true }) authorName: string | null;
  @Property() authorIsBot: boolean;
  @Property({ type: 'text' }) content: string;
  @Property({ columnType: 'timestamptz' }) createdAt: Date;
  @Property({ length: 20, nullable: true }) replyToMessageId: string | null;
  @Property({ type: 'json' }) mentions: string[];
  @Property() reactionCount: number;
  @Property() replyCount: number;
  @Property() quoteCount: number;
  @Property({ length: 64, nullable: true }) epochId: string | null;
}
