import { Injectable, Logger } from '@nestjs/common';
import type { Subscription } from '@nats-io/nats-core';
import {
  Aggregates,
  Subjects,
  subject,
  type Envelope,
  type TurnGranted,
} from '@dirigent/contracts';
import { EventStore } from '@dirigent/event-store';
import { Messaging } from '@dirigent/messaging';
import { Channels, channelSubject } from '../application/channels';
import { Identities } from '../application/identities';

/**
 * Keeps the in-memory aggregate states coherent when another replica writes (a rolling
 * deploy, a second instance): every new commit written by another process is compared with
 * the cached version of its aggregate, and a cache that is behind is dropped, to be rebuilt
 * from the events on next use. This process's own commits are told apart by their writer
 * header, so nothing waits for its own acknowledgements.
 *
 * Published grants are heard too (core NATS, in the order the server delivers them): a grant
 * reaches this process before the agent it names can ask about it, so check-turn answers a
 * refusal from memory unless a grant the cache does not hold was heard (Channels.grantHeard).
 * After a reconnect, grants may have been missed: every cached channel is read again.
 */
@Injectable()
export class CacheCoherence {
  private readonly log = new Logger('coherence');
  private readonly watches: { stop(): Promise<void> }[] = [];
  private grants?: Subscription;
  private stopped = false;

  constructor(
    private readonly store: EventStore,
    private readonly messaging: Messaging,
    private readonly channels: Channels,
    private readonly identities: Identities,
  ) {}

  async start(): Promise<void> {
    const nc = this.messaging.client.nc;
    this.grants = nc.subscribe(Subjects.turn.grantedAll, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const g = msg.json<Envelope<TurnGranted>>().data;
          if (typeof g?.channelId === 'string' && typeof g.turnId === 'string') {
            this.channels.grantHeard(g.channelId, g.turnId);
          }
        } catch {
          // Not a grant envelope: nothing to learn from it.
        }
      },
    });
    void (async () => {
      for await (const s of nc.status()) {
        if (this.stopped) return;
        if (s.type === 'reconnect') this.channels.invalidateAll();
      }
    })().catch(() => undefined);
    await this.watch(
      subject.aggregate(Aggregates.channel, '>'),
      (subj, seq) => this.channels.invalidateIfBehind(subj.slice(channelSubject('').length), seq),
      () => this.channels.invalidateAll(),
    );
    await this.watch(
      subject.aggregate(Aggregates.identity, '>'),
      (_subj, seq) => this.identities.invalidateIfBehind(seq),
      () => this.identities.invalidateAll(),
    );
    await nc.flush();
  }

  /** `onGap`: the watch was lost and started again (commits missed, or a new stream). */
  private async watch(
    filter: string,
    check: (subj: string, seq: number) => Promise<void>,
    onGap: () => void,
  ) {
    this.watches.push(
      await this.store.watch(
        filter,
        ({ subject: subj, seq, ownWrite }) => {
          if (ownWrite) return;
          check(subj, seq).catch((e: Error) =>
            this.log.warn({ subject: subj, err: e.message }, 'cache check failed'),
          );
        },
        () => {
          this.log.warn({ filter }, 'commit watch lost and started again; caches read afresh');
          onGap();
        },
      ),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.grants?.unsubscribe();
    await Promise.all(this.watches.splice(0).map((w) => w.stop()));
  }
}
