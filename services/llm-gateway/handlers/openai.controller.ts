import { Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { parseEmbeddingsRequest } from '@dirigent/llm';
import { CompleteChat } from '../application/complete-chat';
import { CreateEmbeddings } from '../application/create-embeddings';
import { ListModels } from '../application/list-models';
import type { LlmGatewayConfig } from '../config';
import { checkBearer, invalid, serveChat } from './chat-endpoint';
import { requestMeta, routingHeaders, sendError } from './http-errors';
import { inSpanIfTracing, modelSpan } from './http-spans';

/** The OpenAI-compatible API: `/v1/chat/completions` (plain and SSE), `/v1/embeddings`, `/v1/models`. */
@Controller('v1')
export class OpenAiController {
  constructor(
    private readonly chats: CompleteChat,
    private readonly embeddings: CreateEmbeddings,
    private readonly models: ListModels,
    @Inject(SERVICE_CONFIG) private readonly config: LlmGatewayConfig,
  ) {}

  private check(req: Request): void {
    checkBearer(req, this.config);
  }

  @Get('models')
  list(@Req() req: Request, @Res() res: Response): void {
    try {
      this.check(req);
      res.json(this.models.run());
    } catch (e) {
      sendError(res, e);
    }
  }

  @Get('models/:id')
  model(@Req() req: Request, @Res() res: Response, @Param('id') id: string): void {
    try {
      this.check(req);
      res.json(this.models.one(id));
    } catch (e) {
      sendError(res, e);
    }
  }

  /** Served by {@link ChatRoute} first; here when the body needs Express's parser. */
  @Post('chat/completions')
  @HttpCode(200)
  chat(@Req() req: Request, @Res() res: Response): Promise<void> {
    return inSpanIfTracing(req, res, '/v1/chat/completions', (traced) =>
      this.answerChat(req, res, traced),
    );
  }

  @Post('embeddings')
  @HttpCode(200)
  embed(@Req() req: Request, @Res() res: Response): Promise<void> {
    return inSpanIfTracing(req, res, '/v1/embeddings', (traced) =>
      this.answerEmbed(req, res, traced),
    );
  }

  private async answerChat(req: Request, res: Response, traced: boolean): Promise<void> {
    try {
      this.check(req);
      if (traced)
        await modelSpan('model chat', req, req.body, () =>
          serveChat(this.chats, req.body, req, res),
        );
      else await serveChat(this.chats, req.body, req, res);
    } catch (e) {
      sendError(res, e);
    }
  }

  private async answerEmbed(req: Request, res: Response, traced: boolean): Promise<void> {
    try {
      this.check(req);
      const parsed = parseEmbeddingsRequest(req.body);
      if (!parsed.ok) throw invalid(parsed.problem);
      const meta = requestMeta(req, res);
      const result = traced
        ? await modelSpan('model embed', req, req.body, () =>
            this.embeddings.run(parsed.value, meta),
          )
        : await this.embeddings.run(parsed.value, meta);
      routingHeaders(res, result);
      res.json(result.response);
    } catch (e) {
      sendError(res, e);
    }
  }
}
