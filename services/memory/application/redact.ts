import { Injectable, Logger } from '@nestjs/common';
import { RedactionDue } from '@dirigent/contracts';
import { mentionsForgotten, phraseWords } from '@dirigent/memory-domain';
import { declareJob, all, predicate, type DeclaredJob } from '@dirigent/reactor';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { EpochRepository } from '../adapters/postgres/epoch.repository';
import { RedactionStore, type RedactionJob } from '../adapters/postgres/redaction.store';
import { CloseEpoch } from './close-epoch';
import { ConsolidateDossier } from './consolidate-dossier';
import { LoreRedaction } from './lore-redaction';
import { REDACTION, RedactionQueue } from './redaction-queue';
import { ReviseEpoch } from './revise-epoch';

/** Names as they appear in phrases (lower case, apostrophes and punctuation dropped). */
const phraseNames = (names: readonly string[]) =>
  names.map((n) => phraseWords(n).join(' ')).filter((n) => n.length >= 3);

/**
 * The reactor job `redaction`: a deletion or `forget` reaches the layers that were written
 * FROM the messages (the archive, highlights, facts and their vectors went in the deleting
 * transaction). Every epoch whose summary or topics drew on them, or that counts the
 * forgotten user as a participant, is written again from what remains (its event
 * republished); lore drawn on them, or naming or quoting a forgotten user, is dropped (phrases the room
 * repeats may come back from the uses that remain; phrases naming a forgotten user go); the dossier bodies written from them are written again without
 * them. Each step is idempotent — a step done leaves nothing for the next attempt — so a
 * job interrupted anywhere (SIGKILL included) is simply run again: its durable timer fires
 * until the job is marked done, and a start re-arms every pending job.
 */
@Injectable()
export class RedactMemory {
  private readonly log = new Logger('memory:redaction');
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly store: RedactionStore,
    private readonly queue: RedactionQueue,
    private readonly epochs: EpochRepository,
    private readonly dossiers: DossierRepository,
    private readonly reviseEpoch: ReviseEpoch,
    private readonly consolidate: ConsolidateDossier,
    private readonly closes: CloseEpoch,
    private readonly loreRedaction: LoreRedaction,
  ) {}

  /** The reactor job `redaction` (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    return [
      declareJob<RedactionDue, { pending: boolean }>({
        name: 'redaction',
        trigger: all(
          REDACTION,
          predicate('pending', (s) => s.pending),
        ),
        parse: RedactionDue.create,
        snapshot: async (due) => ({ pending: (await this.store.pending(due.jobId)) !== null }),
        run: (due) => this.run(due.jobId),
      }),
    ];
  }

  /**
   * After the deleting transaction committed (it recorded the job): arms the job's timer,
   * then runs it at once. A failure here is logged; the timer retries it.
   */
  async start(job: Pick<RedactionJob, 'id' | 'guildId'>): Promise<void> {
    await this.queue.arm(job);
    await this.run(job.id).catch((e: Error) =>
      this.log.warn(`redaction ${job.id} will be retried: ${e.message}`),
    );
  }

  /** Runs the job (one run at a time per job in this process); a done job is a no-op. */
  run(jobId: string): Promise<void> {
    const current = this.running.get(jobId);
    if (current) return current;
    const p = this.attempt(jobId).finally(() => this.running.delete(jobId));
    this.running.set(jobId, p);
    return p;
  }

  private async attempt(jobId: string): Promise<void> {
    const job = await this.store.pending(jobId);
    if (!job) return;
    try {
      await this.redact(job);
      await this.store.done(job.id);
    } catch (e) {
      await this.store.failed(job.id, (e as Error).message).catch(() => undefined);
      throw e;
    }
  }

  private async redact(job: RedactionJob): Promise<void> {
    const { guildId, messageIds, userId } = job;
    const forgotten = userId ? { userId, names: job.names ?? [], quotes: job.quotes } : undefined;
    // A close running now may have read their messages, or others' naming them, before the
    // forget: its epoch is looked for once written.
    if (forgotten) await this.closes.settled(guildId);
    const epochs = new Set(
      (await this.epochs.drawingOn(guildId, messageIds, userId)).map((e) => e.id as string),
    );
    // A forgotten user named in a summary they took no part in (others talked of them).
    if (forgotten) {
      for (const e of await this.epochs.mentioning(guildId, [
        ...forgotten.names.filter((n) => n.trim().length >= 3),
        userId!,
      ])) {
        if (mentionsForgotten(`${e.summary} ${JSON.stringify(e.topics)}`, forgotten)) {
          epochs.add(e.id as string);
        }
      }
    }
    for (const epoch of epochs) await this.reviseEpoch.run(guildId, epoch, forgotten);
    // Lore of any kind that names or quotes a forgotten user (a phrase others repeat about
    // them) goes too, and the phrases naming them, so that it is not coalesced again.
    const names = forgotten ? phraseNames([...forgotten.names, forgotten.userId]) : [];
    const seen = forgotten && { ...forgotten, names: [...forgotten.names, ...names] };
    const naming = seen ? await this.loreRedaction.naming(guildId, seen) : [];
    await this.loreRedaction.remove(guildId, messageIds, naming, userId, names);
    const authors = job.authorIds.filter((a) => a !== userId);
    for (const user of await this.dossiers.bodiesDrawingOn(guildId, messageIds, authors)) {
      if (user !== userId) await this.consolidate.run(guildId, user, true, forgotten);
    }
  }
}
