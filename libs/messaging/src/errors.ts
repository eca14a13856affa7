import { DomainError, ErrorCodes, fail, type Reply } from '@dirigent/contracts';

/** A failure worth retrying later (the default for unknown errors). */
export class TransientError extends Error {}
/** A failure that no redelivery can fix: terminate and dead-letter at once. */
export class PermanentError extends Error {}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** True when redelivering the message cannot help: dead-letter it at once. */
export function isPermanent(e: unknown): boolean {
  return (
    e instanceof PermanentError || (e instanceof DomainError && e.code === ErrorCodes.BAD_REQUEST)
  );
}

/**
 * The reply envelope for a failed request: a DomainError keeps its code, message and details;
 * anything else is logged and answered as `INTERNAL` without its text (it may hold secrets).
 */
export function failureReply(e: unknown, log: Logger, subject: string): Reply<never> {
  if (e instanceof DomainError) return fail(e.code, e.message, e.details);
  log.error({ subject, err: (e as Error)?.message ?? String(e) }, 'handler failed');
  return fail(ErrorCodes.INTERNAL, 'internal error; see the service log');
}
