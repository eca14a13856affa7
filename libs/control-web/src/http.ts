import type { Response } from 'express';
import { ErrorCodes, IdentityUpsertRequest, validatePayload } from '@dirigent/contracts';
import { ReplyFailure } from './control-data';

/** HTTP status of each reply error code. */
export const STATUS: Record<string, number> = {
  [ErrorCodes.BAD_REQUEST]: 400,
  [ErrorCodes.INVALID_MODE]: 400,
  [ErrorCodes.UNAUTHORIZED]: 401,
  [ErrorCodes.FORBIDDEN]: 403,
  [ErrorCodes.NOT_FOUND]: 404,
  [ErrorCodes.CONFLICT]: 409,
  [ErrorCodes.MODE_LOCKED]: 409,
  [ErrorCodes.UNAVAILABLE]: 503,
  [ErrorCodes.TIMEOUT]: 504,
};

const SECURITY_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

export function headers(res: Response): Response {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
  return res;
}

export const SNOWFLAKE = /^\d{1,20}$/;

export function asObject(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

export function fieldError(field: string, message: string): ReplyFailure {
  return new ReplyFailure(ErrorCodes.BAD_REQUEST, message, [{ field, messages: [message] }]);
}

export function snowflake(value: unknown, field: string): string {
  if (typeof value !== 'string' || !SNOWFLAKE.test(value)) {
    throw fieldError(field, `${field} must be a Discord snowflake`);
  }
  return value;
}

/** The registry entry out of a request body, through the contract's own validation. */
export function validIdentity(body: unknown): IdentityUpsertRequest {
  const b = asObject(body);
  const input: Record<string, unknown> = {
    discordUserId: b.discordUserId,
    agentId: b.agentId,
  };
  if (typeof b.agentName === 'string' && b.agentName.trim() !== '') input.agentName = b.agentName;
  const checked = validatePayload(IdentityUpsertRequest, input);
  if (!checked.ok) {
    throw new ReplyFailure(ErrorCodes.BAD_REQUEST, 'invalid identity', checked.errors);
  }
  return checked.value;
}
