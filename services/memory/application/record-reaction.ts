import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { ReactionChanged } from '@dirigent/contracts';
import { detectMoment } from '@dirigent/memory-domain';
import { HighlightRepository, highlightId } from '../adapters/postgres/highlight.repository';
import { MessageRepository } from '../adapters/postgres/message.repository';
import { Indexer } from './indexer';

/** Reactions count distinct users per message; enough of them make the message a highlight. */
@Injectable()
export class RecordReaction {
  constructor(
    private readonly em: EntityManager,
    private readonly messages: MessageRepository,
    private readonly highlights: HighlightRepository,
    private readonly indexer: Indexer,
  ) {}

  async run(e: ReactionChanged, added: boolean): Promise<void> {
    const created = await this.em.transactional(async () => {
      const row = await this.messages.react(e.guildId, e.messageId, e.userId, e.emoji, added);
      if (!row || !added) return null;
      const moment = detectMoment({
        content: row.content,
        authorIsBot: row.author_is_bot,
        reactionCount: row.reaction_count,
        replyCount: row.reply_count,
        quoteCount: row.quote_count,
      });
      if (!moment) return null;
      const h = await this.highlights.addFromMessage(
        e.guildId,
        e.messageId,
        moment.kind,
        moment.score,
      );
      return h?.created ? row.content : null;
    });
    if (created) {
      await this.indexer.index(e.guildId, [
        { layer: 'highlights', refId: highlightId(e.messageId), text: created },
      ]);
    }
  }
}
