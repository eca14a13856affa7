import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { RedactionJob } from '../adapters/postgres/redaction.store';
import { Indexer } from './indexer';
import { RedactMemory } from './redact';
import { RedactionQueue } from './redaction-queue';

/** What a deletion took out of the layers that hold text (ids of each). */
export interface Erased {
  messageIds: string[];
  highlightIds: string[];
  facts: string[];
}

/** What `take` removed, and the redaction job to record (none: nothing was left to take). */
export interface Taken<T extends Erased> {
  erased: T;
  job: Omit<RedactionJob, 'id' | 'guildId'> | null;
}

/**
 * The one way something leaves memory, for a deleted message and a `forget` alike: what
 * `take` removes from the archive, highlights and facts leaves search (their vectors) in
 * the same transaction, which also records the redaction job; after the commit the job is
 * started — also when a redelivery after a crash finds nothing left to take but the job
 * still pending. The job revisits what was written FROM the messages (`RedactMemory`).
 */
@Injectable()
export class EraseFromMemory {
  constructor(
    private readonly em: EntityManager,
    private readonly indexer: Indexer,
    private readonly queue: RedactionQueue,
    private readonly redact: RedactMemory,
  ) {}

  async run<T extends Erased>(
    jobId: string,
    guildId: string,
    take: () => Promise<Taken<T>>,
  ): Promise<T> {
    const { erased, recorded } = await this.em.transactional(async () => {
      const { erased, job } = await take();
      await this.indexer.remove(guildId, 'archive', erased.messageIds);
      await this.indexer.remove(guildId, 'highlights', erased.highlightIds);
      await this.indexer.remove(guildId, 'dossiers', erased.facts);
      if (job) await this.queue.record({ id: jobId, guildId, ...job });
      return { erased, recorded: job !== null };
    });
    if (recorded || (await this.queue.pending(jobId))) {
      await this.redact.start({ id: jobId, guildId });
    }
    return erased;
  }
}
