import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { tracingEnabled } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { CompleteChat } from '../application/complete-chat';
import type { LlmGatewayConfig } from '../config';
import { checkBearer, readJsonBody, serveChat } from './chat-endpoint';
import { sendError } from './http-errors';
import { inServerSpan, modelSpan } from './http-spans';

const PATH = '/v1/chat/completions';

/**
 * `POST /v1/chat/completions`, the gateway's hot path, answered by the HTTP server ahead
 * of Express: Express's dispatch, the access log line, the ORM request context and JSON
 * body parser cost more than the rest of a call together (see
 * docs/performance.md, "The chat route"), and this route needs none of them — every call is
 * recorded in the usage ledger instead. Anything else, and a body this route does not
 * read itself (compressed, another charset), goes on to Express: {@link OpenAiController}
 * answers it the same way.
 */
@Injectable()
export class ChatRoute implements OnApplicationBootstrap {
  constructor(
    private readonly host: HttpAdapterHost,
    private readonly chats: CompleteChat,
    @Inject(SERVICE_CONFIG) private readonly config: LlmGatewayConfig,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.host.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    const others = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.takes(req)) return void this.serve(req, res);
      for (const listener of others) listener.call(server, req, res);
    });
  }

  private takes(req: IncomingMessage): boolean {
    if (req.method !== 'POST' || req.url !== PATH) return false;
    const encoding = req.headers['content-encoding'];
    const type = req.headers['content-type'];
    return !(encoding && encoding !== 'identity') && !(type && /charset=(?!utf-?8)/i.test(type));
  }

  private serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Tracing off, nothing is made for spans: the one check, then the answer.
    if (tracingEnabled()) return inServerSpan(req, res, PATH, () => this.answer(req, res, true));
    return this.answer(req, res, false);
  }

  private async answer(req: IncomingMessage, res: ServerResponse, traced: boolean): Promise<void> {
    try {
      checkBearer(req, this.config);
      const body = await readJsonBody(req);
      if (traced)
        await modelSpan('model chat', req, body, () => serveChat(this.chats, body, req, res));
      else await serveChat(this.chats, body, req, res);
    } catch (e) {
      sendError(res, e);
    }
  }
}
