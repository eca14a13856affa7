import { Injectable } from '@nestjs/common';
import type { MemoryForgetRequest, MemoryForgetResult } from '@dirigent/contracts';
import { mentionsForgotten, quoteHashes, type Forgotten } from '@dirigent/memory-domain';
import { Clock } from '@dirigent/service-kit';
import { DossierRepository } from '../adapters/postgres/dossier.repository';
import { HighlightRepository } from '../adapters/postgres/highlight.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import { EraseFromMemory } from './erase';

/**
 * `Subjects.memory.forget`: one user's messages, highlights, facts and dossier in one
 * guild, in one transaction that records a redaction job; the job (run before the reply,
 * retried until done whatever restarts do) writes again every epoch that drew on their
 * messages or counts them as a participant, drops the lore drawn on them and rebuilds the
 * dossier bodies written from them — and those of others that name or quote them, without
 * their names.
 */
@Injectable()
export class ForgetUser {
  constructor(
    private readonly messages: MessageRepository,
    private readonly highlights: HighlightRepository,
    private readonly dossiers: DossierRepository,
    private readonly erase: EraseFromMemory,
    private readonly clock: Clock,
  ) {}

  async run(r: MemoryForgetRequest): Promise<MemoryForgetResult> {
    const jobId = `user:${r.guildId}:${r.userId}:${this.clock.now()}`;
    const gone = await this.erase.run(jobId, r.guildId, async () => {
      // Who else's dossier body names or quotes them: written again without them.
      const trace = await this.messages.authorTrace(r.guildId, r.userId);
      const own = await this.dossiers.get(r.guildId, r.userId);
      const forgotten: Forgotten = {
        userId: r.userId,
        names: [...new Set([...trace.names, ...(own?.user_name ? [own.user_name as string] : [])])],
        quotes: quoteHashes(trace.texts),
      };
      const others = (await this.dossiers.otherBodies(r.guildId, r.userId))
        .filter((d) => mentionsForgotten(d.body, forgotten))
        .map((d) => d.userId);
      const messageIds = await this.messages.removeByAuthor(r.guildId, r.userId);
      const highlightIds = await this.highlights.removeByAuthor(r.guildId, r.userId);
      const { facts, dossiers } = await this.dossiers.forget(r.guildId, r.userId);
      return {
        erased: { messageIds, highlightIds, facts, dossiers },
        job: {
          userId: r.userId,
          messageIds,
          authorIds: [r.userId, ...others],
          names: forgotten.names as string[],
          quotes: forgotten.quotes as string[],
        },
      };
    });
    return {
      removed:
        gone.messageIds.length + gone.highlightIds.length + gone.facts.length + gone.dossiers,
    };
  }
}
