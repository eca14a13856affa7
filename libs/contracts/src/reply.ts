/** Error codes a reply can carry. Additive only. */
export const ErrorCodes = {
  BAD_REQUEST: 'BAD_REQUEST',
  NOT_FOUND: 'NOT_FOUND',
  FORBIDDEN: 'FORBIDDEN',
  UNAUTHORIZED: 'UNAUTHORIZED',
  CONFLICT: 'CONFLICT',
  MODE_LOCKED: 'MODE_LOCKED',
  INVALID_MODE: 'INVALID_MODE',
  UNAVAILABLE: 'UNAVAILABLE',
  TIMEOUT: 'TIMEOUT',
  BUDGET_EXHAUSTED: 'BUDGET_EXHAUSTED',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export interface FieldError {
  field: string;
  messages: string[];
}

export interface ReplyError {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/** Every request/reply answer: `{ ok: true, data }` or `{ ok: false, error }`. */
export type Reply<T> = { ok: true; data: T } | { ok: false; error: ReplyError };

export const ok = <T>(data: T): Reply<T> => ({ ok: true, data });
export const fail = (code: ErrorCode, message: string, details?: unknown): Reply<never> => ({
  ok: false,
  error: details === undefined ? { code, message } : { code, message, details },
});

/** A failure a handler throws on purpose; the messaging layer turns it into `ok:false`. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
