import type { Messaging } from '@dirigent/messaging';
import type { UsageRecord } from '@dirigent/llm';
import { WriteBehind, type Sql } from './stores';

function record(id: string): UsageRecord {
  return {
    id,
    at: new Date(0).toISOString(),
    guildId: 'g',
    purpose: null,
    kind: 'chat',
    stream: false,
    requestedModel: 'm',
    model: 'm',
    provider: 'p',
    inputTokens: 1,
    outputTokens: 1,
    reservedUsd: 0,
    costUsd: 0,
    latencyMs: 1,
    outcome: 'ok',
    fallbacks: [],
    attempts: 1,
  };
}

describe('WriteBehind', () => {
  it('sums settlements per guild and day into one batch, then publishes each record', async () => {
    const statements: { sql: string; params: unknown[] }[] = [];
    const sql = {
      durable: async (fn: (q: (s: string, p?: unknown[]) => Promise<unknown[]>) => Promise<void>) =>
        fn(async (s, p = []) => {
          statements.push({ sql: s, params: p });
          return [];
        }),
    } as unknown as Sql;
    const published: string[] = [];
    const messaging = {
      publishEvent: async (_s: string, _t: string, u: UsageRecord) => {
        published.push(u.id);
      },
    } as unknown as Messaging;
    const wb = new WriteBehind(sql, messaging, '00000000-0000-0000-0000-000000000001', 5);
    const settled = Promise.all([
      wb.settle('g1', '2026-11-22', 100, 10),
      wb.settle('g1', '2026-11-22', 50, 5),
      wb.settle('g2', '2026-11-22', 7, 7),
    ]);
    wb.record(record('a'));
    wb.record(record('b'));
    await settled;
    await wb.drain();
    const update = statements.find((s) => s.sql.includes('update llm_guild_spend'))!;
    expect(update.params).toEqual([
      ['g1', 'g2'],
      ['2026-11-22', '2026-11-22'],
      [150, 7],
      [15, 7],
    ]);
    expect(statements.filter((s) => s.sql.includes('insert into llm_usage'))).toHaveLength(1);
    expect(published).toEqual(['a', 'b']);
  });

  it('keeps the batch and retries when Postgres fails, and stops retrying at shutdown', async () => {
    let failures = 1;
    let writes = 0;
    const sql = {
      durable: async () => {
        if (failures-- > 0) throw new Error('connection refused');
        writes++;
      },
    } as unknown as Sql;
    const messaging = { publishEvent: async () => undefined } as unknown as Messaging;
    const wb = new WriteBehind(sql, messaging, '00000000-0000-0000-0000-000000000001', 1);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const settled = wb.settle('g', '2026-11-22', 10, 1);
      await jest.advanceTimersByTimeAsync(5);
      expect(writes).toBe(0);
      await jest.advanceTimersByTimeAsync(1_000);
      await settled;
      expect(writes).toBe(1);
      failures = 1;
      const lost = wb.settle('g', '2026-11-22', 10, 1);
      await expect(Promise.all([lost, wb.drain(true)])).rejects.toThrow('connection refused');
    } finally {
      jest.useRealTimers();
    }
  });
});
