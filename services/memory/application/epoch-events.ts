import { Injectable, Logger } from '@nestjs/common';
import { MemoryEventTypes, Streams, subject, type EpochClosed } from '@dirigent/contracts';
import { Messaging, removeStoredMessage } from '@dirigent/messaging';
import { EpochRepository, epochView } from '../adapters/postgres/epoch.repository';
import type { Row } from '../adapters/postgres/sql';

/**
 * Publishes `epoch.closed` for the epochs whose current revision is not on the stream yet.
 * A revision (the epoch written again after a deletion or `forget`) is published with its
 * own `Nats-Msg-Id` and the previous event is removed from the stream, so the stream never
 * keeps a summary or participant that memory no longer holds. A crash at any point
 * publishes again, once (the id de-duplicates).
 */
@Injectable()
export class EpochEvents {
  private readonly log = new Logger('memory:epoch-events');

  constructor(
    private readonly epochs: EpochRepository,
    private readonly messaging: Messaging,
  ) {}

  async publishPending(guildId: string, channelId: string): Promise<void> {
    for (const row of await this.epochs.unpublished(guildId, channelId)) {
      const revision = Number(row.revision ?? 0);
      const ack = await this.messaging.publishEvent(
        subject.memoryEvent(guildId, channelId, 'epoch.closed'),
        MemoryEventTypes.epochClosed,
        closedEvent(guildId, row),
        { id: revision ? `${row.id}:r${revision}` : row.id },
      );
      if (row.published_seq && Number(row.published_seq) !== ack.seq) {
        await this.unpublish(Number(row.published_seq));
      }
      await this.epochs.markPublished(row.id, revision, ack.seq);
    }
  }

  /** Removes an event from the memory events stream (gone already is fine). */
  async unpublish(seq: number | null): Promise<void> {
    if (!seq) return;
    const removed = await removeStoredMessage(this.messaging.client.jsm, Streams.memoryEvents, seq);
    if (!removed) this.log.debug(`event ${seq} already gone`);
  }
}

function closedEvent(guildId: string, r: Row): EpochClosed {
  const { id, ...rest } = epochView(r);
  return { epochId: id, guildId, ...rest };
}
