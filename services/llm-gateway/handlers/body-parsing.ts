import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import express, { type NextFunction, type Request, type Response } from 'express';
import { BODY_LIMIT, bodyError } from './chat-endpoint';
import { sendError } from './http-errors';

/**
 * Parses JSON for the gateway's routes before Nest's own parser (which then skips the
 * already-read body), with OpenAI-shaped errors for unreadable bodies.
 */
@Injectable()
export class BodyParsing {
  constructor(host: HttpAdapterHost) {
    const app = host.httpAdapter?.getInstance<express.Express>();
    if (!app) return;
    const parse = express.json({ limit: BODY_LIMIT, type: () => true });
    const onError = (
      err: Error & { status?: number; type?: string },
      _req: Request,
      res: Response,
      next: NextFunction,
    ) => {
      if (!err) return next();
      sendError(res, bodyError(err.type === 'entity.too.large', err.message));
    };
    for (const path of ['/v1', '/admin/llm']) app.use(path, parse, onError);
  }
}
