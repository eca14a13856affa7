import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { MessageCreated } from '@dirigent/contracts';
import { detectMoment, disclosures, quotedPassages } from '@dirigent/memory-domain';
import { DossierRepository } from '../adapters/dossier.repository';
import { HighlightRepository, highlightId } from '../adapters/highlight.repository';
import { MessageRepository } from '../adapters/message.repository';
import type { Row } from '../adapters/sql';
import { EpochTimer } from '../adapters/epoch-timer';
import { MemoryConfig } from '../config';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { ConsolidateDossier } from './consolidate-dossier';
import { Indexer } from './indexer';

/**
 * A Discord message enters memory: archived once (by Discord id), counted in its author's
 * dossier, its self-disclosures learned as facts, the messages it answers or quotes
 * credited (and kept as highlights when that makes them moments), then embedded, and the
 * channel's epoch timer re-armed.
 */
@Injectable()
export class IngestMessage {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly dossiers: DossierRepository,
    private readonly highlights: HighlightRepository,
    private readonly indexer: Indexer,
    private readonly timer: EpochTimer,
    private readonly consolidate: ConsolidateDossier,
    @Inject(SERVICE_CONFIG) private readonly config: MemoryConfig,
  ) {}

  async run(e: MessageCreated): Promise<void> {
    const at = new Date(e.createdAt);
    // Embedded first, stored with the message in one transaction.
    const embedded = await this.indexer.query(e.guildId, e.content);
    const outcome = await this.em.transactional(async () => {
      const stored = await this.messages.insertIfNew({
        guildId: e.guildId,
        channelId: e.channelId,
        messageId: e.messageId,
        authorId: e.authorId,
        authorName: e.authorName,
        authorIsBot: e.authorIsBot,
        content: e.content,
        createdAt: at,
        replyToMessageId: e.replyToMessageId,
        mentions: e.mentions ?? [],
      });
      if (!stored) return null;
      if (embedded) {
        await this.indexer.store(e.guildId, embedded.model, [
          { layer: 'archive', refId: e.messageId, vector: embedded.vector },
        ]);
      }
      const counters = await this.dossiers.countMessage(
        e.guildId,
        e.authorId,
        e.authorName,
        e.content.length,
        at,
      );
      const facts = e.authorIsBot
        ? []
        : await this.dossiers.learn(
            {
              guildId: e.guildId,
              userId: e.authorId,
              sourceMessageId: e.messageId,
              channelId: e.channelId,
              validFrom: at.getTime(),
            },
            disclosures(e.content),
          );
      const credited: Row[] = [];
      if (e.replyToMessageId) {
        const target = await this.messages.bumpReplies(e.guildId, e.replyToMessageId);
        if (target) credited.push(target);
      }
      for (const passage of quotedPassages(e.content)) {
        const quoted = await this.messages.bumpQuote(e.guildId, passage, at);
        if (quoted) credited.push(quoted);
      }
      const highlighted: { messageId: string; text: string }[] = [];
      const self: Row = {
        message_id: e.messageId,
        content: e.content,
        author_is_bot: e.authorIsBot,
      };
      for (const r of [self, ...credited]) {
        const moment = detectMoment({
          content: r.content,
          authorIsBot: r.author_is_bot,
          reactionCount: r.reaction_count ?? 0,
          replyCount: r.reply_count ?? 0,
          quoteCount: r.quote_count ?? 0,
        });
        if (!moment) continue;
        const h = await this.highlights.addFromMessage(
          e.guildId,
          r.message_id,
          moment.kind,
          moment.score,
        );
        if (h?.created) highlighted.push({ messageId: r.message_id, text: r.content });
      }
      return { counters, facts, highlighted };
    });
    await this.timer.arm(e.guildId, e.channelId, at.getTime() + this.config.DIRIGENT_EPOCH_GAP_MS);
    if (!outcome) return;
    await this.indexer.index(e.guildId, [
      ...outcome.facts.map((f) => ({
        layer: 'dossiers' as const,
        refId: f.id,
        text: `${e.authorName ?? ''} ${f.statement}`,
      })),
      ...outcome.highlighted.map((h) => ({
        layer: 'highlights' as const,
        refId: highlightId(h.messageId),
        text: h.text,
      })),
    ]);
    await this.consolidate.maybe(e.guildId, e.authorId, outcome.counters);
  }
}
