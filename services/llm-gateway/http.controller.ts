import { Controller, Get, HttpCode, Inject, Logger, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { LLM_GUILD } from '@dirigent/contracts';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  GatewayError,
  LlmGateway,
  parseChatRequest,
  parseEmbeddingsRequest,
  type RequestMeta,
  type Routed,
} from '@dirigent/llm';
import { authorized } from './auth';
import type { LlmGatewayConfig } from './config';

/** Budgets are per guild; a caller that names none spends from this one. */
export const DEFAULT_GUILD = 'global';

const log = new Logger('llm-gateway:http');

/** Answers an error in OpenAI's shape. The gateway is the only retry loop: clients are told not to retry. */
export function sendError(res: Response, e: unknown): void {
  const err =
    e instanceof GatewayError
      ? e
      : new GatewayError(
          500,
          'server_error',
          'internal_error',
          'internal error; see the gateway log',
        );
  if (!(e instanceof GatewayError)) log.error(`unexpected failure: ${(e as Error).stack ?? e}`);
  if (res.headersSent) {
    if (!res.writableEnded) res.end(`data: ${JSON.stringify(err.toBody())}\n\n`);
    return;
  }
  res.setHeader('x-should-retry', 'false');
  if (err.retryAfterSec !== undefined) res.setHeader('retry-after', String(err.retryAfterSec));
  res.status(err.status).json(err.toBody());
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The caller's guild and purpose, and a signal that fires when the caller disconnects. */
export function requestMeta(req: Request, res: Response): RequestMeta {
  const guildId = header(req, 'x-dirigent-guild') ?? DEFAULT_GUILD;
  if (!LLM_GUILD.test(guildId))
    throw new GatewayError(
      400,
      'invalid_request_error',
      'invalid_guild',
      'x-dirigent-guild: must be 1-64 letters, digits, _ or -',
      'x-dirigent-guild',
    );
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return { guildId, purposeHeader: header(req, 'x-dirigent-purpose'), signal: controller.signal };
}

function routingHeaders(res: Response, r: Routed): void {
  res.setHeader('x-dirigent-model', r.model.id);
  if (r.purpose) res.setHeader('x-dirigent-purpose', r.purpose);
  if (r.fallbacks.length) res.setHeader('x-dirigent-fallbacks', r.fallbacks.join(','));
  res.setHeader('x-dirigent-attempts', String(r.attempts));
}

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
    private readonly gateway: LlmGateway,
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
  models(@Req() req: Request, @Res() res: Response): void {
    try {
      this.check(req);
      res.json(this.gateway.listModels());
    } catch (e) {
      sendError(res, e);
    }
  }

  @Get('models/:id')
  model(@Req() req: Request, @Res() res: Response, @Param('id') id: string): void {
    try {
      this.check(req);
      const model = this.gateway.listModels().data.find((m) => m.id === id);
      if (!model)
        throw new GatewayError(
          404,
          'invalid_request_error',
          'model_not_found',
          `The model \`${id}\` does not exist`,
          'model',
        );
      res.json(model);
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
        const result = await this.gateway.chat(parsed.value, meta);
        routingHeaders(res, result);
        res.json(result.completion);
        return;
      }
      const stream = await this.gateway.chatStream(parsed.value, meta);
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
  async embeddings(@Req() req: Request, @Res() res: Response): Promise<void> {
    try {
      this.check(req);
      const parsed = parseEmbeddingsRequest(req.body);
      if (!parsed.ok) throw invalid(parsed.problem);
      const result = await this.gateway.embed(parsed.value, requestMeta(req, res));
      routingHeaders(res, result);
      res.json(result.response);
    } catch (e) {
      sendError(res, e);
    }
  }
}
