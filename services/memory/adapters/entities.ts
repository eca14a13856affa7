import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { EmbeddingRepository } from './embedding.repository';
import { EpochRepository } from './epoch.repository';
import { DossierRepository } from './dossier.repository';
import { HighlightRepository } from './highlight.repository';
import { MessageRepository } from './message.repository';
import { LoreRepository } from './lore.repository';

// Tables of Migration20261123120000_memory. The generated `tsv` columns are Postgres's own.

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

/** A user's dossier in a guild: counters, the curated body and its signals. */
@Entity({ tableName: 'memory_dossier', repository: () => DossierRepository })
export class MemoryDossierRow {
  @PrimaryKey({ length: 20 }) guildId: string;
  @PrimaryKey({ length: 20 }) userId: string;
  @Property({ length: 100, nullable: true }) userName: string | null;
  @Property({ type: 'text' }) body: string;
  @Property({ type: 'json' }) signals: Record<string, unknown>;
  @Property() messageCount: number;
  @Property() messagesSince: number;
  @Property() charsSince: number;
  @Property({ columnType: 'timestamptz', nullable: true }) lastSeenAt: Date | null;
  @Property({ columnType: 'timestamptz', nullable: true }) lastConsolidatedAt: Date | null;
}

/** A dossier fact with its validity window; closed when contradicted, never deleted. */
@Entity({ tableName: 'memory_fact', repository: () => DossierRepository })
export class MemoryFact {
  @PrimaryKey({ length: 80 }) id: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 20 }) userId: string;
  @Property({ length: 80 }) key: string;
  @Property({ length: 200 }) value: string;
  @Property({ type: 'text' }) statement: string;
  @Property({ length: 20, nullable: true }) sourceMessageId: string | null;
  @Property({ length: 20, nullable: true }) channelId: string | null;
  @Property({ columnType: 'timestamptz' }) validFrom: Date;
  @Property({ columnType: 'timestamptz', nullable: true }) validUntil: Date | null;
  @Property({ length: 80, nullable: true }) supersededBy: string | null;
}

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

/** A piece of group lore (paraphrase by design), with a validity window. */
@Entity({ tableName: 'memory_lore', repository: () => LoreRepository })
export class MemoryLore {
  @PrimaryKey({ length: 80 }) id: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ type: 'text' }) text: string;
  @Property({ length: 64, nullable: true }) sourceEpochId: string | null;
  @Property({ columnType: 'timestamptz' }) validFrom: Date;
  @Property({ columnType: 'timestamptz', nullable: true }) validUntil: Date | null;
  @Property({ length: 80, nullable: true }) supersededBy: string | null;
}

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

/** A vector of one item of a layer, `real[]` scored in process. */
@Entity({ tableName: 'memory_embedding', repository: () => EmbeddingRepository })
export class MemoryEmbedding {
  @PrimaryKey({ type: 'bigint', autoincrement: true }) seq: string;
  @Property({ length: 20 }) guildId: string;
  @Property({ length: 16 }) layer: string;
  @Property({ length: 80 }) refId: string;
  @Property({ length: 120 }) model: string;
  @Property({ type: 'float[]', columnType: 'real[]' }) vector: number[];
}

export const memoryEntities = [
  MemoryMessage,
  MemoryDossierRow,
  MemoryFact,
  MemoryHighlightRow,
  MemoryLore,
  MemoryEpochRow,
  MemoryEmbedding,
];
