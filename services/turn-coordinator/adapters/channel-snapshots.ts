import { Buckets } from '@dirigent/contracts';
import { KvSnapshotStore } from '@dirigent/event-store';
import type { Messaging } from '@dirigent/messaging';
import { CHANNEL_STATE_SCHEMA, isChannelState, type ChannelState } from '@dirigent/turn-domain';
import { channelSubject } from '../application/channels';

/**
 * The channel snapshots: a NATS KV bucket (`Buckets.channelSnapshots`, one key per channel,
 * history 1) beside the event store — on the connection every replica already has, read in
 * one request at a channel's first load, with nothing to migrate. A snapshot is only a
 * cache: of another schema, undecodable or not matching the stored commit, the channel is
 * replayed from its events.
 */
export function openChannelSnapshots(
  messaging: Messaging,
  opts: { bucket?: string; onError?: (err: Error, subject: string) => void } = {},
): Promise<KvSnapshotStore<ChannelState>> {
  const prefix = channelSubject('');
  return KvSnapshotStore.open<ChannelState>(messaging, {
    bucket: opts.bucket ?? Buckets.channelSnapshots,
    schema: CHANNEL_STATE_SCHEMA,
    accept: (state, subject) =>
      subject.startsWith(prefix) && isChannelState(state, subject.slice(prefix.length)),
    onError: opts.onError,
  });
}
