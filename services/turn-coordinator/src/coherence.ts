import { Injectable, Logger } from '@nestjs/common';
import { AckPolicy, DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { Streams, subject } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { Channels, channelSubject } from './channels';
import { Identities } from './identities';

/** Long enough for our own append's acknowledgement to have updated the cache. */
const SETTLE_MS = 100;

/**
 * Keeps the in-memory aggregate states coherent when another replica writes (a rolling
 * deploy, a second instance): every new commit on the event store is compared with the
 * cached version of its aggregate, and a cache that is behind is dropped, to be rebuilt
 * from the events on next use.
 */
@Injectable()
export class CacheCoherence {
  private readonly log = new Logger('coherence');
  private readonly feeds: { messages: ConsumerMessages; name: string; loop: Promise<void> }[] = [];

  constructor(
    private readonly messaging: Messaging,
    private readonly channels: Channels,
    private readonly identities: Identities,
  ) {}

  async start(): Promise<void> {
    await this.watch(subject.aggregate('channel', '>'), (subj, seq) =>
      this.channels.invalidateIfBehind(subj.slice(channelSubject('').length), seq),
    );
    await this.watch(subject.aggregate('identity', '>'), (_subj, seq) =>
      this.identities.invalidateIfBehind(seq),
    );
  }

  private async watch(filter: string, check: (subj: string, seq: number) => Promise<void>) {
    const { jsm, js } = this.messaging.client;
    const info = await jsm.consumers.add(Streams.eventStore, {
      filter_subject: filter,
      deliver_policy: DeliverPolicy.New,
      ack_policy: AckPolicy.None,
      mem_storage: true,
      inactive_threshold: nanos(30_000),
    });
    const consumer = await js.consumers.get(Streams.eventStore, info.name);
    const messages = await consumer.consume({ max_messages: 256 });
    const loop = (async () => {
      for await (const m of messages) {
        const { subject: subj, seq } = m;
        setTimeout(() => {
          check(subj, seq).catch((e: Error) =>
            this.log.warn({ subject: subj, err: e.message }, 'cache check failed'),
          );
        }, SETTLE_MS).unref();
      }
    })();
    this.feeds.push({ messages, name: info.name, loop });
  }

  async stop(): Promise<void> {
    for (const f of this.feeds.splice(0)) {
      await f.messages.close();
      await f.loop.catch(() => undefined);
      await this.messaging.client.jsm.consumers
        .delete(Streams.eventStore, f.name)
        .catch(() => undefined);
    }
  }
}
