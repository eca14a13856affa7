import { Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { GatewayError, parseChatRequest, parseEmbeddingsRequest } from '@dirigent/llm';
import { CompleteChat } from '../application/complete-chat';
import { CreateEmbeddings } from '../application/create-embeddings';
import { ListModels } from '../application/list-models';
import type { LlmGatewayConfig } from '../config';
import { authorized } from './auth';
import { requestMeta, routingHeaders, sendError } from './http-errors';

function invalid(problem: { field: string; message: string }): GatewayError {
  return new GatewayError(
    400,
    'invalid_request_error',
    'invalid_request',
    problem.message,
    problem.field,
  );
}

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
    if (!authorized(req, [this.config.DIRIGENT_GATEWAY_TOKEN]))
      throw new GatewayError(
        401,
        'invalid_request_error',
        'invalid_api_key',
        this.config.DIRIGENT_GATEWAY_TOKEN
          ? 'missing or wrong bearer token'
          : 'DIRIGENT_GATEWAY_TOKEN is not set: only loopback callers are served',
      );
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

  @Post('chat/completions')
  @HttpCode(200)
  async chat(@Req() req: Request, @Res() res: Response): Promise<void> {
    try {
      this.check(req);
      const parsed = parseChatRequest(req.body);
      if (!parsed.ok) throw invalid(parsed.problem);
      const meta = requestMeta(req, res);
      if (!parsed.value.stream) {
        const result = await this.chats.run(parsed.value, meta);
        routingHeaders(res, result);
        res.json(result.completion);
        return;
      }
      const stream = await this.chats.stream(parsed.value, meta);
      routingHeaders(res, stream);
      res.status(200);
      res.setHeader('content-type', 'text/event-stream; charset=utf-8');
      res.setHeader('cache-control', 'no-cache');
      res.setHeader('x-accel-buffering', 'no');
      res.flushHeaders();
      try {
        for await (const chunk of stream.chunks) {
          if (res.writableEnded || meta.signal.aborted) break;
          res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        }
        if (!res.writableEnded) res.end('data: [DONE]\n\n');
      } finally {
        await stream.chunks.return();
      }
    } catch (e) {
      sendError(res, e);
    }
  }

  @Post('embeddings')
  @HttpCode(200)
  async embed(@Req() req: Request, @Res() res: Response): Promise<void> {
    try {
      this.check(req);
      const parsed = parseEmbeddingsRequest(req.body);
      if (!parsed.ok) throw invalid(parsed.problem);
      const result = await this.embeddings.run(parsed.value, requestMeta(req, res));
      routingHeaders(res, result);
      res.json(result.response);
    } catch (e) {
      sendError(res, e);
    }
  }
}
