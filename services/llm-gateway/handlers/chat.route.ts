import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { CompleteChat } from '../application/complete-chat';
import type { LlmGatewayConfig } from '../config';
import { checkBearer, readJsonBody, serveChat } from './chat-endpoint';
import { sendError } from './http-errors';

/**
 * `POST /v1/chat/completions`, the gateway's hot path, mounted on Express ahead of the
 * framework's per-request middleware (by {@link BodyParsing}): the access log line, the
 * ORM request context and the router cost more than the rest of a call together (see
 * docs/performance/gateway.md), and this route uses neither — every call is recorded in
 * the usage ledger instead. A body it does not read itself (compressed, another charset)
 * goes on to {@link OpenAiController}, which answers the same way.
 */
@Injectable()
export class ChatRoute {
  constructor(
    private readonly chats: CompleteChat,
    @Inject(SERVICE_CONFIG) private readonly config: LlmGatewayConfig,
  ) {}

  readonly handle = (req: Request, res: Response, next: NextFunction): void => {
    const encoding = req.headers['content-encoding'];
    const type = req.headers['content-type'];
    if ((encoding && encoding !== 'identity') || (type && /charset=(?!utf-?8)/i.test(type)))
      return next();
    void this.serve(req, res);
  };

  private async serve(req: Request, res: Response): Promise<void> {
    try {
      checkBearer(req, this.config);
      await serveChat(this.chats, await readJsonBody(req), req, res);
    } catch (e) {
      sendError(res, e);
    }
  }
}
