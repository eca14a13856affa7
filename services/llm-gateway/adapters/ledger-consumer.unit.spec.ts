import { waitFor } from '@dirigent/testing';
import {
  ledgerEntries,
  ledgerEntry,
  LedgerConsumer,
  type Delivery,
  type LedgerStore,
} from './ledger-consumer';
import type { LedgerEntry } from './postgres-ledger';
import { INSTANCE_HEADER } from './usage-publisher';
import { usageRecord } from '../test/usage-record';

const INSTANCE = '00000000-0000-4000-8000-000000000001';

const record = usageRecord;

function delivery(body: unknown, instance: string | undefined = INSTANCE) {
  const d = {
    json: () => {
      if (typeof body === 'string') throw new Error('not JSON');
      return body;
    },
    header: (name: string) => (name === INSTANCE_HEADER ? instance : undefined),
    ack: jest.fn(),
    nak: jest.fn(),
    term: jest.fn(),
    seq: '1',
  };
  return d satisfies Delivery;
}

const envelope = (data: unknown) => ({
  id: 'x',
  type: 'llm.usage',
  v: 1,
  at: '',
  source: 's',
  data,
});

const batch = (records: unknown[]) => ({
  ...envelope({ records }),
  type: 'llm.usage.batch',
});

/** A store that fails a batch holding a record with `error: 'poison'` as Postgres would refuse data. */
class Store implements LedgerStore {
  batches: LedgerEntry[][] = [];
  down = false;
  async apply(entries: LedgerEntry[]): Promise<number> {
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    if (entries.some((e) => e.record.error === 'poison'))
      throw Object.assign(new Error('value too long'), { code: '22001' });
    this.batches.push(entries);
    return entries.length;
  }
}

async function run(store: Store, rounds: Delivery[][], maxBatch = 1_000) {
  const consumer = new LedgerConsumer({} as never, store, 1, maxBatch);
  const pulls: number[] = [];
  await consumer.start(async (batch) => {
    pulls.push(batch);
    return rounds.shift() ?? [];
  });
  await waitFor(() => rounds.length === 0 && pulls.length > 1);
  await consumer.stop();
  return pulls;
}

describe('ledgerEntry', () => {
  it('takes a usage record and the instance holding its reservation', () => {
    const r = record();
    expect(ledgerEntry(envelope(r), INSTANCE)).toEqual({ record: r, instanceId: INSTANCE });
    expect(ledgerEntry(envelope(r), 'not-a-uuid')).toEqual({ record: r, instanceId: undefined });
  });

  it.each([
    ['not an envelope', {}],
    ['id', envelope({ ...record(), id: 'x' })],
    ['at', envelope({ ...record(), at: 'yesterday' })],
    ['inputTokens', envelope({ ...record(), inputTokens: 1.5 })],
    ['costUsd', envelope({ ...record(), costUsd: '1' })],
    ['model', envelope({ ...record(), model: 5 })],
    ['fallbacks', envelope({ ...record(), fallbacks: 'a' })],
  ])('refuses a message whose %s is wrong', (why, body) => {
    expect(ledgerEntry(body, INSTANCE)).toEqual(expect.stringContaining(why));
  });
});

describe('ledgerEntries', () => {
  it("takes a batch's records, naming those that are no usage record", () => {
    const [a, b] = [record(), record()];
    expect(ledgerEntries(batch([a, { ...record(), id: 'x' }, b]), INSTANCE)).toEqual({
      entries: [
        { record: a, instanceId: INSTANCE },
        { record: b, instanceId: INSTANCE },
      ],
      refused: [expect.stringMatching(/^records\[1\]: id/)],
    });
    expect(ledgerEntries(batch('x' as never), INSTANCE)).toEqual({
      entries: [],
      refused: ['records: not an array'],
    });
  });

  it('takes the one record of an llm.usage envelope', () => {
    const r = record();
    expect(ledgerEntries(envelope(r), INSTANCE)).toEqual({
      entries: [{ record: r, instanceId: INSTANCE }],
      refused: [],
    });
  });
});

describe('LedgerConsumer', () => {
  it('applies the records of batches and single records together, then acks each message', async () => {
    const store = new Store();
    const many = delivery(batch([record(), record(), { ...record(), costUsd: 'x' }]));
    const one = delivery(envelope(record()));
    await run(store, [[many, one]]);
    expect(store.batches.map((b) => b.length)).toEqual([3]);
    expect(many.ack).toHaveBeenCalledTimes(1);
    expect(one.ack).toHaveBeenCalledTimes(1);
  });

  it('drops only the record of a batch Postgres refuses as data; keeps the rest', async () => {
    const store = new Store();
    const ok = record();
    const mixed = delivery(batch([ok, record({ error: 'poison' })]));
    const other = delivery(envelope(record()));
    await run(store, [[mixed, other]]);
    expect(store.batches.flat().map((e) => e.record.id)).toContain(ok.id);
    expect(store.batches.flat()).toHaveLength(2);
    expect(mixed.ack).toHaveBeenCalledTimes(1);
    expect(mixed.nak).not.toHaveBeenCalled();
    expect(other.ack).toHaveBeenCalledTimes(1);
  });

  it('naks a batch while Postgres is away', async () => {
    const store = new Store();
    store.down = true;
    const d = delivery(batch([record(), record()]));
    await run(store, [[d]]);
    expect(d.nak).toHaveBeenCalledWith(1_000);
    expect(d.ack).not.toHaveBeenCalled();
  });

  it('applies what a pull brings in one batch, then acks each; drops what is no usage record', async () => {
    const store = new Store();
    const good = [delivery(envelope(record())), delivery(envelope(record()))];
    const bad = delivery('{');
    await run(store, [[good[0], bad, good[1]]]);
    expect(store.batches).toHaveLength(1);
    expect(store.batches[0]).toHaveLength(2);
    for (const d of good) expect(d.ack).toHaveBeenCalledTimes(1);
    expect(bad.term).toHaveBeenCalledTimes(1);
    expect(bad.ack).not.toHaveBeenCalled();
  });

  it('applies a failing batch record by record: drops what Postgres refuses as data, acks the rest', async () => {
    const store = new Store();
    const ok = delivery(envelope(record()));
    const poison = delivery(envelope(record({ error: 'poison' })));
    await run(store, [[ok, poison]]);
    expect(ok.ack).toHaveBeenCalledTimes(1);
    expect(poison.term).toHaveBeenCalledTimes(1);
    expect(poison.nak).not.toHaveBeenCalled();
  });

  it('acks nothing while Postgres is away: every record comes back later', async () => {
    const store = new Store();
    store.down = true;
    const ds = [delivery(envelope(record())), delivery(envelope(record()))];
    await run(store, [ds]);
    for (const d of ds) {
      expect(d.ack).not.toHaveBeenCalled();
      expect(d.term).not.toHaveBeenCalled();
      expect(d.nak).toHaveBeenCalledWith(1_000);
    }
  });

  it('pulls again at once after a full batch', async () => {
    const store = new Store();
    const pulls = await run(
      store,
      [
        [delivery(envelope(record())), delivery(envelope(record()))],
        [delivery(envelope(record()))],
      ],
      2,
    );
    expect(pulls.slice(0, 2)).toEqual([2, 2]);
    expect(store.batches.map((b) => b.length)).toEqual([2, 1]);
  });
});
