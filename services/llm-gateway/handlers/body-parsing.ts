import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import express, { type NextFunction, type Request, type Response } from 'express';
import { GatewayError } from '@dirigent/llm';
import { sendError } from './http-errors';

/** Large prompts are normal here; Nest's default JSON limit (100 kB) is not. */
const BODY_LIMIT = '32mb';

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
      const tooLarge = err.type === 'entity.too.large';
      sendError(
        res,
        new GatewayError(
          tooLarge ? 413 : 400,
          'invalid_request_error',
          tooLarge ? 'body_too_large' : 'invalid_json',
          tooLarge
            ? `(body): larger than ${BODY_LIMIT}`
            : `(body): not valid JSON (${err.message})`,
          '(body)',
        ),
      );
    };
    for (const path of ['/v1', '/admin/llm']) app.use(path, parse, onError);
  }
}
