import { waitFor } from '@dirigent/testing';
import { usageRecord } from '../test/usage-record';
import { INSTANCE_HEADER, UsagePublisher } from './usage-publisher';

const INSTANCE = '00000000-0000-4000-8000-000000000001';

const record = () => usageRecord();

function fakeMessaging() {
  const published: { id: string; headers: Record<string, string> }[] = [];
  return {
    published,
    publishEvent: jest.fn(
      (_s: string, _t: string, _d: unknown, o: { id: string; headers: Record<string, string> }) => {
        published.push(o);
        return Promise.resolve({ stream: 'S', seq: published.length, duplicate: false });
      },
    ),
  };
}

describe('UsagePublisher', () => {
  it('publishes the records of calls that end close together at once, each as its own event', async () => {
    const messaging = fakeMessaging();
    const usage = new UsagePublisher(messaging as never, INSTANCE, 5);
    const records = [record(), record(), record()];
    for (const r of records) usage.record(r);
    expect(messaging.publishEvent).not.toHaveBeenCalled();
    await waitFor(() => messaging.published.length === 3);
    expect(messaging.published).toEqual(
      records.map((r) => ({ id: `llm-usage:${r.id}`, headers: { [INSTANCE_HEADER]: INSTANCE } })),
    );
  });

  it('does not wait for the window once 64 records are waiting', async () => {
    const messaging = fakeMessaging();
    const usage = new UsagePublisher(messaging as never, INSTANCE, 3_600_000);
    for (let i = 0; i < 64; i++) usage.record(record());
    await waitFor(() => messaging.published.length === 64);
    await usage.drain();
  });

  it('publishes what is waiting when drained', async () => {
    const messaging = fakeMessaging();
    const usage = new UsagePublisher(messaging as never, INSTANCE, 3_600_000);
    usage.record(record());
    usage.record(record());
    await usage.drain();
    expect(messaging.published).toHaveLength(2);
  });
});
