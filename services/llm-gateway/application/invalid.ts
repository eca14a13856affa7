import { GatewayError } from '@dirigent/llm';

/** A 400 naming the field, in OpenAI's error shape. */
export function invalid(param: string, message: string): GatewayError {
  return new GatewayError(
    400,
    'invalid_request_error',
    'invalid_request',
    `${param}: ${message}`,
    param,
  );
}
