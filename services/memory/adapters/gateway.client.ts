import { Logger } from '@nestjs/common';
import { Subjects, type LlmChatRequest, type LlmEmbedRequest } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import {
  HASHED_EMBEDDER_MODEL,
  hashedEmbedding,
  hashedEmbeddingF32,
  hashedIndexFeatures,
} from '@dirigent/memory-domain';
import type { Embedder, ModelPurpose, Summarizer } from '../application/ports';
import { TimeSlice } from '../application/time-slice';

interface EmbedReply {
  response: { data: { embedding: number[] | string; index: number }[] };
  model: string;
}

const fromBase64 = (s: string) => Array.from(new Float32Array(Buffer.from(s, 'base64').buffer));

/** Embeddings through the model gateway, purpose `embed` (OpenAI, Ollama, or its offline model). */
export class GatewayEmbedder implements Embedder {
  constructor(
    private readonly messaging: Messaging,
    private readonly dimensions: number,
    private readonly timeoutMs: number,
  ) {}

  async embed(guildId: string, texts: string[]) {
    const request: Record<string, unknown> = { input: texts };
    if (this.dimensions > 0) request.dimensions = this.dimensions;
    const body: LlmEmbedRequest = { guildId, purpose: 'embed', request };
    const reply = await this.messaging.request<EmbedReply>(
      Subjects.llm.embed,
      body,
      this.timeoutMs,
    );
    if (!reply.ok) throw new Error(`embed failed: ${reply.error.code} ${reply.error.message}`);
    const data = [...reply.data.response.data].sort((a, b) => a.index - b.index);
    return {
      model: `${reply.data.model}/${this.dimensions || 'native'}`,
      vectors: data.map((d) =>
        normalize(typeof d.embedding === 'string' ? fromBase64(d.embedding) : d.embedding),
      ),
    };
  }
}

function normalize(v: number[]): number[] {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return n ? v.map((x) => x / n) : v;
}

/** The weight-free hashed embedder in process: no gateway, same vectors as the offline model. */
export class LocalEmbedder implements Embedder {
  readonly derived;

  constructor(private readonly dimensions: number) {
    this.derived = {
      model: `${HASHED_EMBEDDER_MODEL}/${dimensions}`,
      vector: (text: string) => hashedEmbeddingF32(text, dimensions),
      features: (text: string) => hashedIndexFeatures(text, dimensions),
    };
  }

  /**
   * A few milliseconds of hashing at a time: a moment batch's lore, or an epoch's items,
   * came in hundreds and held the event loop for each whole call.
   */
  async embed(_guildId: string, texts: string[]) {
    const vectors: number[][] = [];
    const slice = new TimeSlice();
    for (const t of texts) {
      if (slice.spent) await slice.next();
      vectors.push(hashedEmbedding(t, this.dimensions));
    }
    return { model: this.derived.model, vectors };
  }
}

interface ChatReply {
  completion: { choices: { message: { content: string | null } }[] };
}

/** Chat completions through the gateway for `extract`, `epoch-summarize`, `memory`, `rerank`. */
export class GatewaySummarizer implements Summarizer {
  private readonly log = new Logger('memory:gateway');

  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {}

  async complete(
    guildId: string,
    purpose: ModelPurpose,
    system: string,
    user: string,
    timeoutMs = this.timeoutMs,
  ) {
    const body: LlmChatRequest = {
      guildId,
      purpose,
      request: {
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
      },
    };
    const reply = await this.messaging
      .request<ChatReply>(Subjects.llm.chat, body, timeoutMs)
      .catch((e: Error) => ({
        ok: false as const,
        error: { code: 'TIMEOUT', message: e.message },
      }));
    if (!reply.ok) {
      this.log.warn(`${purpose} failed: ${reply.error.code} ${reply.error.message}`);
      return null;
    }
    return reply.data.completion?.choices?.[0]?.message?.content ?? null;
  }
}
