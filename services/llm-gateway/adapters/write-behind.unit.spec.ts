import type { Messaging } from '@dirigent/messaging';
import type { UsageRecord } from '@dirigent/llm';
import { WriteBehind, type LedgerWriter, type Settlement } from './write-behind';

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
    const batches: { settlements: Settlement[]; records: UsageRecord[] }[] = [];
    const ledger: LedgerWriter = {
      write: async (settlements, records) => {
        batches.push({ settlements, records });
      },
    };
    const published: string[] = [];
    const messaging = {
      publishEvent: async (_s: string, _t: string, u: UsageRecord) => {
        published.push(u.id);
      },
    } as unknown as Messaging;
    const wb = new WriteBehind(ledger, messaging, 5);
    const settled = Promise.all([
      wb.settle('g1', '2026-11-22', 100, 10),
      wb.settle('g1', '2026-11-22', 50, 5),
      wb.settle('g2', '2026-11-22', 7, 7),
    ]);
    wb.record(record('a'));
    wb.record(record('b'));
    await settled;
    await wb.drain();
    expect(batches).toHaveLength(1);
    expect(batches[0].settlements).toEqual([
      { guildId: 'g1', day: '2026-11-22', released: 150, spent: 15 },
      { guildId: 'g2', day: '2026-11-22', released: 7, spent: 7 },
    ]);
    expect(batches[0].records.map((r) => r.id)).toEqual(['a', 'b']);
    expect(published).toEqual(['a', 'b']);
  });

  it('keeps the batch and retries when Postgres fails, and stops retrying at shutdown', async () => {
    let failures = 1;
    let writes = 0;
    const ledger: LedgerWriter = {
      write: async () => {
        if (failures-- > 0) throw new Error('connection refused');
        writes++;
      },
    };
    const messaging = { publishEvent: async () => undefined } as unknown as Messaging;
    const wb = new WriteBehind(ledger, messaging, 1);
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
