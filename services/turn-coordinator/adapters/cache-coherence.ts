import { Injectable, Logger } from '@nestjs/common';
import { Aggregates, subject } from '@dirigent/contracts';
import { EventStore } from '@dirigent/event-store';
import { Channels, channelSubject } from '../application/channels';
import { Identities } from '../application/identities';

/**
 * Keeps the in-memory aggregate states coherent when another replica writes (a rolling
 * deploy, a second instance): every new commit written by another process is compared with
 * the cached version of its aggregate, and a cache that is behind is dropped, to be rebuilt
 * from the events on next use. This process's own commits are told apart by their writer
 * header, so nothing waits for its own acknowledgements.
 */
@Injectable()
export class CacheCoherence {
  private readonly log = new Logger('coherence');
  private readonly watches: { stop(): Promise<void> }[] = [];

  constructor(
    private readonly store: EventStore,
    private readonly channels: Channels,
    private readonly identities: Identities,
  ) {}

  async start(): Promise<void> {
    await this.watch(subject.aggregate(Aggregates.channel, '>'), (subj, seq) =>
      this.channels.invalidateIfBehind(subj.slice(channelSubject('').length), seq),
    );
    await this.watch(subject.aggregate(Aggregates.identity, '>'), (_subj, seq) =>
      this.identities.invalidateIfBehind(seq),
    );
  }

  private async watch(filter: string, check: (subj: string, seq: number) => Promise<void>) {
    this.watches.push(
      await this.store.watch(filter, ({ subject: subj, seq, ownWrite }) => {
        if (ownWrite) return;
        check(subj, seq).catch((e: Error) =>
          this.log.warn({ subject: subj, err: e.message }, 'cache check failed'),
        );
      }),
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.watches.splice(0).map((w) => w.stop()));
  }
}
