import { Inject, Injectable, Logger } from '@nestjs/common';
import type { SearchLayer } from '@dirigent/memory-domain';
import { ArchiveIndex } from '../adapters/archive-index';
import { EMBEDDER, VECTOR_STORE, type Embedder, type VectorStore } from './ports';

/** Embeds texts of any layer and stores their vectors; a failed embedding leaves full text. */
@Injectable()
export class Indexer {
  private readonly log = new Logger('memory:indexer');

  constructor(
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(VECTOR_STORE) private readonly vectors: VectorStore,
    private readonly archive: ArchiveIndex,
  ) {}

  async index(guildId: string, items: { layer: SearchLayer; refId: string; text: string }[]) {
    const useful = items.filter((i) => i.text.trim());
    if (!useful.length) return;
    try {
      const { model, vectors } = await this.embedder.embed(
        guildId,
        useful.map((i) => i.text),
      );
      await this.vectors.upsert(
        guildId,
        model,
        useful.map((i, n) => ({ layer: i.layer, refId: i.refId, vector: vectors[n] })),
      );
    } catch (e) {
      this.log.warn(`not embedded (full-text search still finds it): ${(e as Error).message}`);
    }
  }

  /** Stores vectors made beforehand (inside the caller's transaction, when there is one). */
  async store(
    guildId: string,
    model: string,
    items: { layer: SearchLayer; refId: string; vector: number[] }[],
  ) {
    await this.vectors.upsert(guildId, model, items);
  }

  /**
   * Whether the archive's vectors are derived from the messages where they are searched
   * (`ArchiveIndex`), so that the ingest neither computes nor stores them.
   */
  get archiveDerived(): boolean {
    return !!this.embedder.derived;
  }

  /** One text's vector and model, or null when the embedder is unavailable. */
  async query(guildId: string, text: string) {
    const found = await this.queryMany(guildId, [text]);
    return found && { model: found.model, vector: found.vectors[0] };
  }

  /** Texts' vectors (in order) and model, or null when the embedder is unavailable. */
  async queryMany(guildId: string, texts: string[]) {
    try {
      return await this.embedder.embed(guildId, texts);
    } catch (e) {
      this.log.warn(`without vectors: ${(e as Error).message}`);
      return null;
    }
  }

  /** Drops items from search: their vectors and, for messages, the archive's word index. */
  async remove(guildId: string, layer: SearchLayer, refIds: string[]) {
    if (layer === 'archive') this.archive.remove(guildId, refIds);
    await this.vectors.remove(guildId, layer, refIds);
  }
}
