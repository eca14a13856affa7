import { waitFor } from '@dirigent/testing';
import { usageRecord } from '../test/usage-record';
import { COALESCE_MAX, INSTANCE_HEADER, UsagePublisher } from './usage-publisher';

const INSTANCE = '00000000-0000-4000-8000-000000000001';

const record = () => usageRecord();

function fakeMessaging() {
  const published: {
    id: string;
    type: string;
    ids: string[];
    headers: Record<string, string>;
  }[] = [];
  return {
    published,
    publishEvent: jest.fn(
      (
        _s: string,
        type: string,
        d: { records: { id: string }[] },
        o: { id: string; headers: Record<string, string> },
      ) => {
        published.push({ ...o, type, ids: d.records.map((r) => r.id) });
        return Promise.resolve({ stream: 'S', seq: published.length, duplicate: false });
      },
    ),
  };
}

describe('UsagePublisher', () => {
  it('publishes the records of calls that end close together in one event', async () => {
    const messaging = fakeMessaging();
    const usage = new UsagePublisher(messaging as never, INSTANCE, 5);
    const records = [record(), record(), record()];
    for (const r of records) usage.record(r);
    expect(messaging.publishEvent).not.toHaveBeenCalled();
    await waitFor(() => messaging.published.length === 1);
    expect(messaging.published).toEqual([
      {
        id: `llm-usage-batch:${records[0].id}`,
        type: 'llm.usage.batch',
        ids: records.map((r) => r.id),
        headers: { [INSTANCE_HEADER]: INSTANCE },
      },
    ]);
  });

  it('does not wait for the window once a full batch is waiting', async () => {
    const messaging = fakeMessaging();
    const usage = new UsagePublisher(messaging as never, INSTANCE, 3_600_000);
    for (let i = 0; i < COALESCE_MAX; i++) usage.record(record());
    await waitFor(() => messaging.published.length === 1);
    expect(messaging.published[0].ids).toHaveLength(COALESCE_MAX);
    await usage.drain();
  });

  it('publishes a batch NATS refused again, under the same id', async () => {
    const messaging = fakeMessaging();
    messaging.publishEvent.mockImplementationOnce(() => Promise.reject(new Error('no responders')));
    const usage = new UsagePublisher(messaging as never, INSTANCE, 3_600_000);
    const records = [record(), record()];
    for (const r of records) usage.record(r);
    await usage.drain();
    expect(messaging.publishEvent).toHaveBeenCalledTimes(2);
    expect(messaging.published).toEqual([
      expect.objectContaining({
        id: `llm-usage-batch:${records[0].id}`,
        ids: records.map((r) => r.id),
      }),
    ]);
  });

  it('publishes what is waiting when drained', async () => {
    const messaging = fakeMessaging();
    const usage = new UsagePublisher(messaging as never, INSTANCE, 3_600_000);
    usage.record(record());
    usage.record(record());
    await usage.drain();
    expect(messaging.published).toHaveLength(1);
    expect(messaging.published[0].ids).toHaveLength(2);
  });
});
