import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type MemoryHighlight,
  type MemoryHighlightAddRequest,
} from '@dirigent/contracts';
import { HighlightRepository, highlightView } from '../adapters/postgres/highlight.repository';
import { Indexer } from './indexer';

/** `Subjects.memory.highlightAdd`: the archived message, verbatim, with attribution. */
@Injectable()
export class AddHighlight {
  constructor(
    private readonly highlights: HighlightRepository,
    private readonly indexer: Indexer,
  ) {}

  async run(r: MemoryHighlightAddRequest): Promise<MemoryHighlight> {
    const added = await this.highlights.addFromMessage(
      r.guildId,
      r.messageId,
      r.kind ?? 'manual',
      1,
    );
    if (!added || added.row.channel_id !== r.channelId) {
      throw new DomainError(
        ErrorCodes.NOT_FOUND,
        `message ${r.messageId} is not in memory for channel ${r.channelId} of guild ${r.guildId}`,
      );
    }
    if (added.created) {
      await this.indexer.index(r.guildId, [
        { layer: 'highlights', refId: added.row.id, text: added.row.raw_text },
      ]);
    }
    return highlightView(added.row);
  }
}
