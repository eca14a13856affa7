import type { IncomingMessage } from 'node:http';

export type Json = Record<string, unknown>;

/** An error the playground's API answers with its status and message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The request's JSON object body (at most 64 kB); `{}` when empty. */
export async function readBody(req: IncomingMessage): Promise<Json> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 64_000) throw new HttpError(413, 'body too large');
    chunks.push(c as Buffer);
  }
  if (!chunks.length) return {};
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error();
    return v as Json;
  } catch {
    throw new HttpError(400, 'body must be a JSON object');
  }
}

export const str = (v: unknown, field: string, max = 2000): string => {
  if (typeof v !== 'string' || v.trim() === '' || v.length > max) {
    throw new HttpError(400, `${field} must be a non-empty string of at most ${max} characters`);
  }
  return v;
};
