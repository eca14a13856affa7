import { Inject, Injectable, Logger } from '@nestjs/common';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  parseRerank,
  reorder,
  RERANK_SYSTEM,
  rerankPrompt,
  type ScoredItem,
} from '@dirigent/memory-domain';
import type { MemoryConfig } from '../config';
import { SUMMARIZER, type Summarizer } from './ports';

/**
 * The model's say on a search's order (purpose `rerank`, when `DIRIGENT_MEMORY_RERANK` is
 * on): the cheap ranking's first `DIRIGENT_MEMORY_RERANK_TOP` hits go to the model, which
 * answers with their order; the hits it names come first, the rest follow in the cheap
 * order. A model that does not answer within `DIRIGENT_MEMORY_RERANK_TIMEOUT_MS`, fails,
 * or answers without an order (the offline default) leaves the cheap order as it was.
 */
@Injectable()
export class RerankHits {
  private readonly log = new Logger('memory:rerank');

  constructor(
    @Inject(SUMMARIZER) private readonly model: Summarizer,
    @Inject(SERVICE_CONFIG) private readonly config: MemoryConfig,
  ) {}

  get enabled(): boolean {
    return this.config.DIRIGENT_MEMORY_RERANK;
  }

  /** How many hits a search should fetch so that the model sees its share. */
  fetch(k: number): number {
    return this.enabled ? Math.max(k, this.config.DIRIGENT_MEMORY_RERANK_TOP) : k;
  }

  async apply(guildId: string, question: string, hits: ScoredItem[]): Promise<ScoredItem[]> {
    if (!this.enabled || hits.length < 2) return hits;
    const top = hits.slice(0, this.config.DIRIGENT_MEMORY_RERANK_TOP);
    const prompt = rerankPrompt(
      question,
      top.map((h) => ({ text: h.text, author: h.authorName, at: h.at })),
    );
    const answer = await this.model
      .complete(
        guildId,
        'rerank',
        RERANK_SYSTEM,
        prompt,
        this.config.DIRIGENT_MEMORY_RERANK_TIMEOUT_MS,
      )
      .catch((e: Error) => {
        this.log.warn(`rerank failed: ${e.message}`);
        return null;
      });
    const order = parseRerank(answer, top.length);
    if (!order) return hits;
    // Scores follow the new order (still descending), within the cheap scores' range.
    const ranked = reorder(top, order);
    const scores = top.map((h) => h.score);
    return [...ranked.map((h, i) => ({ ...h, score: scores[i] })), ...hits.slice(top.length)];
  }
}
