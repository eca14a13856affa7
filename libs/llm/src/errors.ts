import type { Failure } from './failures';

/** An error the gateway answers with, in OpenAI's error shape. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = 'GatewayError';
  }

  toBody(): { error: { message: string; type: string; param: string | null; code: string } } {
    return {
      error: { message: this.message, type: this.type, param: this.param, code: this.code },
    };
  }
}

/** The answer to a request whose last attempt failed with `f` after trying `tried`. */
export function failureError(f: Failure | undefined, tried: string[]): GatewayError {
  const via = tried.length ? ` (tried ${tried.join(', ')})` : '';
  if (!f) return new GatewayError(503, 'server_error', 'no_deployment', `no model available${via}`);
  switch (f.kind) {
    case 'aborted':
      return new GatewayError(499, 'client_closed', 'client_closed', f.message);
    case 'caller':
      return new GatewayError(f.status, 'invalid_request_error', 'upstream_rejected', f.message);
    case 'overflow':
      return new GatewayError(
        400,
        'invalid_request_error',
        'context_length_exceeded',
        `the prompt exceeds every available model's context window${via}`,
        'messages',
      );
    case 'retryable':
      if (f.reason === 'timeout')
        return new GatewayError(
          504,
          'server_error',
          'upstream_timeout',
          `upstream timed out${via}`,
        );
      return new GatewayError(
        502,
        'server_error',
        f.reason === 'rate_limited' ? 'upstream_rate_limited' : 'upstream_error',
        `upstream failed: ${f.message}${via}`,
      );
    case 'skip':
      return new GatewayError(
        502,
        'server_error',
        'upstream_error',
        `upstream refused: ${f.message}${via}`,
      );
    default: {
      const unknown: never = f;
      return unknown;
    }
  }
}

const KEY_SHAPED = /\b(?:sk|pk|rk|key|api[-_]?key)[-_][A-Za-z0-9_*.-]{6,}/gi;

/** Upstream error texts can quote a key (even masked); callers and logs never see one. */
export function redact(message: string, secrets: string[] = []): string {
  let out = message.replace(KEY_SHAPED, '[redacted]');
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]');
  return out;
}
