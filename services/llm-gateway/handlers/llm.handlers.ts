import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DomainError,
  ErrorCodes,
  LlmChatRequest,
  LlmEmbedRequest,
  Subjects,
  type ErrorCode,
} from '@dirigent/contracts';
import { NatsClient, withSpan } from '@dirigent/messaging';
import {
  GatewayError,
  parseChatRequest,
  parseEmbeddingsRequest,
  type RequestMeta,
} from '@dirigent/llm';
import { CompleteChat } from '../application/complete-chat';
import { CreateEmbeddings } from '../application/create-embeddings';
import { DEFAULT_GUILD } from './http-errors';

function code(status: number, type: string): ErrorCode {
  if (type === 'budget_exhausted') return ErrorCodes.BUDGET_EXHAUSTED;
  if (status === 400) return ErrorCodes.BAD_REQUEST;
  if (status === 401) return ErrorCodes.UNAUTHORIZED;
  if (status === 404) return ErrorCodes.NOT_FOUND;
  if (status === 504) return ErrorCodes.TIMEOUT;
  if (status >= 500) return ErrorCodes.UNAVAILABLE;
  return ErrorCodes.BAD_REQUEST;
}

/** Gateway errors as reply errors, with the OpenAI error object as details. */
function domain(e: unknown): unknown {
  if (!(e instanceof GatewayError)) return e;
  return new DomainError(code(e.status, e.type), e.message, e.toBody().error);
}

function meta(guildId: string | undefined, purpose: string | undefined): RequestMeta {
  return {
    guildId: guildId ?? DEFAULT_GUILD,
    purposeHeader: purpose,
    signal: new AbortController().signal,
  };
}

function validated<T>(
  parsed: { ok: true; value: T } | { ok: false; problem: { field: string; message: string } },
): T {
  if (parsed.ok) return parsed.value;
  const field = `request.${parsed.problem.field}`;
  throw new DomainError(ErrorCodes.BAD_REQUEST, `invalid request: ${field}`, [
    { field, messages: [parsed.problem.message] },
  ]);
}

/** Over NATS the purpose may stand in for `request.model`. */
function withModel(data: {
  purpose?: string;
  request: Record<string, unknown>;
}): Record<string, unknown> {
  if (data.request.model !== undefined || !data.purpose) return data.request;
  return { ...data.request, model: `purpose:${data.purpose}` };
}

/**
 * `Subjects.llm.chat` and `Subjects.llm.embed` over NATS request/reply, for the other
 * services. A streamed chat publishes `{ chunk }` messages to the caller's
 * `streamSubject`, then `{ done: true }` (or `{ error }`), and replies with the routing.
 */
@Controller()
export class LlmHandlers {
  constructor(
    private readonly nats: NatsClient,
    private readonly chats: CompleteChat,
    private readonly embeddings: CreateEmbeddings,
  ) {}

  /** `Subjects.llm.chat` (also callable in-process); failures are DomainErrors. */
  @MessagePattern(Subjects.llm.chat)
  async chat(@Payload() data: LlmChatRequest): Promise<unknown> {
    const to = data.streamSubject;
    try {
      // The model call (upstreams, fallbacks, streaming) as a span of the request's trace.
      return await withSpan(
        'model chat',
        { 'dirigent.purpose': data.purpose ?? '', 'dirigent.guild_id': data.guildId ?? '' },
        () => this.chatOrThrow(data),
      );
    } catch (e) {
      // A stream listener learns of a failure before the first chunk too.
      if (to && data.request.stream === true) {
        const err =
          e instanceof GatewayError ? e.toBody().error : { message: (e as Error).message };
        this.nats.nc.publish(to, JSON.stringify({ error: err }));
      }
      throw domain(e);
    }
  }

  /** `Subjects.llm.embed` (also callable in-process); failures are DomainErrors. */
  @MessagePattern(Subjects.llm.embed)
  async embed(@Payload() data: LlmEmbedRequest): Promise<unknown> {
    try {
      const req = validated(parseEmbeddingsRequest(withModel(data)));
      // The model call as a span of the request's trace, as for chat.
      const r = await withSpan(
        'model embed',
        { 'dirigent.purpose': data.purpose ?? '', 'dirigent.guild_id': data.guildId ?? '' },
        () => this.embeddings.run(req, meta(data.guildId, data.purpose)),
      );
      return {
        response: r.response,
        model: r.model.id,
        purpose: r.purpose,
        fallbacks: r.fallbacks,
      };
    } catch (e) {
      throw domain(e);
    }
  }

  private async chatOrThrow(data: LlmChatRequest): Promise<unknown> {
    const req = validated(parseChatRequest(withModel(data)));
    const m = meta(data.guildId, data.purpose);
    if (!req.stream) {
      const r = await this.chats.run(req, m);
      return {
        completion: r.completion,
        model: r.model.id,
        purpose: r.purpose,
        fallbacks: r.fallbacks,
        costUsd: r.costUsd,
      };
    }
    if (!data.streamSubject)
      throw new DomainError(ErrorCodes.BAD_REQUEST, 'invalid request: streamSubject', [
        {
          field: 'streamSubject',
          messages: ['streamSubject is required when request.stream is true'],
        },
      ]);
    const to = data.streamSubject;
    const stream = await this.chats.stream(req, m);
    let chunks = 0;
    try {
      for await (const chunk of stream.chunks) {
        this.nats.nc.publish(to, JSON.stringify({ chunk }));
        chunks++;
      }
      this.nats.nc.publish(to, JSON.stringify({ done: true }));
    } finally {
      await stream.chunks.return();
    }
    return { model: stream.model.id, purpose: stream.purpose, fallbacks: stream.fallbacks, chunks };
  }
}
