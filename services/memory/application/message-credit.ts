import { Injectable } from '@nestjs/common';
import type { MessageCreated } from '@dirigent/contracts';
import { detectMoment, disclosures, quotedPassages } from '@dirigent/memory-domain';
import { DossierRepository, type FactRow } from '../adapters/postgres/dossier.repository';
import { HighlightRepository } from '../adapters/postgres/highlight.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import type { Row } from '../adapters/postgres/sql';

/** What a stored message taught its author's dossier and the highlights it made. */
export interface Outcome {
  e: MessageCreated;
  facts: FactRow[];
  highlighted: { messageId: string; text: string }[];
}

/**
 * What a stored message teaches and credits, inside the ingest's transaction: its
 * self-disclosures learned as facts, a reply or quote counted on the message it answers, and
 * the highlights that makes.
 */
@Injectable()
export class MessageCredit {
  constructor(
    private readonly messages: MessageRepository,
    private readonly dossiers: DossierRepository,
    private readonly highlights: HighlightRepository,
  ) {}

  /**
   * What one stored message teaches and credits: its self-disclosures as facts, a reply or
   * quote counted on the message it answers, and the moments that makes.
   */
  async run(e: MessageCreated, self: Row): Promise<Outcome> {
    const at = new Date(e.createdAt);
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
    const highlighted: Outcome['highlighted'] = [];
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
    return { e, facts, highlighted };
  }
}
