/** Codes a decider may refuse a command with; the service maps them onto the wire reply. */
export type DomainErrorCode =
  | 'BAD_REQUEST'
  | 'INVALID_MODE'
  | 'MODE_LOCKED'
  | 'FORBIDDEN'
  | 'NOT_CURRENT_SPEAKER'
  | 'NOT_A_DISCUSSION'
  | 'ALREADY_EXISTS'
  | 'NOT_FOUND';

export interface DomainError {
  readonly code: DomainErrorCode;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * The outcome of a decide call. A command that has nothing to change (a duplicate, a stale
 * timeout, an unmanaged channel) is `ok` with no events, never an error.
 */
export type Decision<E> =
  | { readonly ok: true; readonly events: readonly E[] }
  | { readonly ok: false; readonly error: DomainError };

export const accept = <E>(events: readonly E[]): Decision<E> => ({ ok: true, events });

export const refuse = <E>(
  code: DomainErrorCode,
  message: string,
  details?: Record<string, unknown>,
): Decision<E> => ({
  ok: false,
  error: details === undefined ? { code, message } : { code, message, details },
});

export function assertNever(value: never): never {
  throw new Error(`Unhandled variant: ${JSON.stringify(value)}`);
}
