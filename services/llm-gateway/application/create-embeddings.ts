import { Injectable } from '@nestjs/common';
import { LlmGateway, type EmbeddingsRequest, type RequestMeta } from '@dirigent/llm';

/** Embeddings of one or many inputs through the gateway core. */
@Injectable()
export class CreateEmbeddings {
  constructor(private readonly gateway: LlmGateway) {}

  run(req: EmbeddingsRequest, meta: RequestMeta): ReturnType<LlmGateway['embed']> {
    return this.gateway.embed(req, meta);
  }
}
