import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { EmbeddingRepository } from './embedding.repository';

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
