import { randomUUID } from 'node:crypto';
import type { UsageRecord } from '@dirigent/llm';

/** A usage record of one answered chat call, with a fresh id. */
export function usageRecord(over: Partial<UsageRecord> = {}): UsageRecord {
  return {
    id: randomUUID(),
    at: '2026-11-23T10:00:00.000Z',
    guildId: '42',
    purpose: 'agent',
    kind: 'chat',
    stream: false,
    requestedModel: 'purpose:agent',
    model: 'gpt',
    provider: 'oa',
    inputTokens: 10,
    outputTokens: 5,
    reservedUsd: 0.002,
    costUsd: 0.00002,
    latencyMs: 3,
    outcome: 'ok',
    fallbacks: [],
    attempts: 1,
    ...over,
  };
}
