import { JetStreamApiError } from '@nats-io/jetstream';
import { envelope } from '@dirigent/contracts';
import {
  COMMIT_TYPE,
  ConcurrencyError,
  EventStore,
  type AppendMeta,
  type Commit,
  type DomainEvent,
} from '@dirigent/event-store';
import type { Messaging } from '@dirigent/messaging';

const WRONG_LAST_SEQUENCE = 10071;

/** A commit that also names the version it was appended on. */
export interface LinkedCommit<E extends DomainEvent = DomainEvent> extends Commit<E> {
  previousVersion?: number;
}

/**
 * The event store, with each commit linked to the aggregate version it follows. Readers of
 * the stream (the reactor) can then tell whether they hold the state right before a commit
 * or missed one (another replica handled it) and must reload.
 */
export class LinkedEventStore extends EventStore {
  constructor(private readonly bus: Messaging) {
    super(bus);
  }

  override async append<E extends DomainEvent>(
    subject: string,
    events: E[],
    expectedVersion: number,
    meta: AppendMeta = {},
  ): Promise<number> {
    if (events.length === 0) return expectedVersion;
    const data: LinkedCommit<E> = { events, previousVersion: expectedVersion };
    const env = envelope(COMMIT_TYPE, this.bus.source, data, meta);
    try {
      const ack = await this.bus.publish(subject, env, {
        expectLastSubjectSequence: expectedVersion,
      });
      return ack.seq;
    } catch (e) {
      if (e instanceof JetStreamApiError && e.code === WRONG_LAST_SEQUENCE) {
        throw new ConcurrencyError(subject, expectedVersion);
      }
      throw e;
    }
  }
}
