import { randomUUID } from 'node:crypto';

/** The envelope every JetStream message carries (docs/architecture.md). */
export interface Envelope<T = unknown> {
  id: string;
  type: string;
  v: number;
  at: string;
  source: string;
  correlationId?: string;
  causationId?: string;
  data: T;
}

/**
 * Builds an envelope. `id` defaults to a random UUID; pass a deterministic one (derived
 * from a Discord id, a run id, a timer key) whenever a re-publish must be de-duplicated.
 *
 * @example
 * const env = envelope('message.created', 'discord-ingest', data, { id: `discord:${messageId}` });
 */
export function envelope<T>(
  type: string,
  source: string,
  data: T,
  opts: { id?: string; at?: Date; correlationId?: string; causationId?: string; v?: number } = {},
): Envelope<T> {
  return {
    id: opts.id ?? randomUUID(),
    type,
    v: opts.v ?? 1,
    at: (opts.at ?? new Date()).toISOString(),
    source,
    ...(opts.correlationId ? { correlationId: opts.correlationId } : {}),
    ...(opts.causationId ? { causationId: opts.causationId } : {}),
    data,
  };
}

export function isEnvelope(value: unknown): value is Envelope {
  const v = value as Envelope;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.id === 'string' &&
    typeof v.type === 'string' &&
    typeof v.v === 'number' &&
    typeof v.at === 'string' &&
    typeof v.source === 'string' &&
    'data' in v
  );
}
