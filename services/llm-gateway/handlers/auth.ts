import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h || !/^bearer /i.test(h)) return undefined;
  return h.slice(7).trim();
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Whether a request may use the API. With a token configured, only `Authorization:
 * Bearer <token>` passes. Without one, only loopback callers pass (a single machine's
 * `npm start`); anything that reaches the port over the network gets 401.
 */
export function authorized(req: IncomingMessage, tokens: (string | undefined)[]): boolean {
  const configured = tokens.filter((t): t is string => !!t);
  if (!configured.length) return LOOPBACK.has(req.socket.remoteAddress ?? '');
  const given = bearer(req);
  return given !== undefined && configured.some((t) => same(given, t));
}
