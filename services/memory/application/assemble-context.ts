import { Inject, Injectable } from '@nestjs/common';
import type { MemoryContextRequest, MemoryContextResult } from '@dirigent/contracts';
import { contextFor, lensFor } from '@dirigent/memory-domain';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import { PostgresMemoryReader } from '../adapters/memory-reader';
import { AudienceScopes } from '../adapters/postgres/channel-audience.store';
import type { MemoryConfig } from '../config';

export const DEFAULT_MAX_TOKENS = 2000;

/**
 * `Subjects.memory.context`: the strategy's lens over the guild's memory, fitted to
 * `maxTokens`. `channelId` is where the answer is posted: the lens reads only what that
 * channel's audience may see (public channels', and its own private channel's).
 */
@Injectable()
export class AssembleContext {
  constructor(
    private readonly reader: PostgresMemoryReader,
    private readonly audiences: AudienceScopes,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: MemoryConfig,
  ) {}

  async run(r: MemoryContextRequest): Promise<MemoryContextResult> {
    // The contract class already refused unknown strategies.
    const lens = lensFor(r.strategy)!;
    const now = this.clock.now();
    const hidden = await this.audiences.hiddenFor(r.guildId, r.forChannelId ?? r.channelId);
    const ctx = await contextFor(
      lens,
      {
        guildId: r.guildId,
        channelId: r.channelId,
        presentUserIds: r.presentUserIds ?? [],
        focusUserId: r.focusUserId,
        topic: r.topic,
        now,
        seed: Math.floor(now / 60_000),
        liveWindow: this.config.DIRIGENT_LIVE_WINDOW,
      },
      this.reader,
      hidden,
      r.maxTokens ?? DEFAULT_MAX_TOKENS,
    );
    return {
      strategy: r.strategy,
      sections: ctx.sections.map((s) => ({
        layer: s.layer,
        items: s.items.map((i) => ({
          id: i.id,
          ...(i.channelId ? { channelId: i.channelId } : {}),
          ...(i.authorId ? { authorId: i.authorId } : {}),
          ...(i.messageId ? { messageId: i.messageId } : {}),
          text: i.text,
          at: new Date(i.at).toISOString(),
        })),
      })),
      text: ctx.text,
      tokens: ctx.tokens,
    };
  }
}
