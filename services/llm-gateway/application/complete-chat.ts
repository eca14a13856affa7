import { Injectable } from '@nestjs/common';
import { LlmGateway, type ChatRequest, type ChatStream, type RequestMeta } from '@dirigent/llm';

/** A chat completion, whole or streamed, through the gateway core. */
@Injectable()
export class CompleteChat {
  constructor(private readonly gateway: LlmGateway) {}

  run(req: ChatRequest, meta: RequestMeta): ReturnType<LlmGateway['chat']> {
    return this.gateway.chat(req, meta);
  }

  /** Resolves at the first chunk; iterate the chunks to the end or `return()` them. */
  stream(req: ChatRequest, meta: RequestMeta): Promise<ChatStream> {
    return this.gateway.chatStream(req, meta);
  }
}
