import { Injectable } from '@nestjs/common';
import type { MessageCreated } from '@dirigent/contracts';
import { ArchiveIndex } from '../adapters/archive-index';
import { ChannelAudienceStore } from '../adapters/postgres/channel-audience.store';
import { MessageRepository } from '../adapters/postgres/message.repository';
import type { Row } from '../adapters/postgres/sql';

/**
 * The transcript archive's writes: messages stored once by their Discord id with the
 * audience each was sent with (inside the ingest's transaction), then, once committed, added
 * to their guild's in-process word index.
 */
@Injectable()
export class MessageArchive {
  constructor(
    private readonly messages: MessageRepository,
    private readonly channels: ChannelAudienceStore,
    private readonly archive: ArchiveIndex,
  ) {}

  /** Stores the messages not stored yet and their channels' audiences; returns the new rows. */
  async insert(events: MessageCreated[]): Promise<Row[]> {
    const stored = await this.messages.insertManyIfNew(
      events.map((e) => ({
        guildId: e.guildId,
        channelId: e.channelId,
        messageId: e.messageId,
        authorId: e.authorId,
        authorName: e.authorName,
        authorIsBot: e.authorIsBot,
        content: e.content,
        createdAt: new Date(e.createdAt),
        replyToMessageId: e.replyToMessageId,
        mentions: e.mentions ?? [],
      })),
    );
    // The audience each message was sent with: the channel's, as of that message.
    await this.channels.record(
      events.flatMap((e) =>
        e.audience
          ? [
              {
                guildId: e.guildId,
                channelId: e.channelId,
                audience: e.audience,
                audienceKey: e.audienceKey,
                parentChannelId: e.parentChannelId,
                at: new Date(e.createdAt),
              },
            ]
          : [],
      ),
    );
    return stored;
  }

  /** The committed rows into their guilds' word indexes. */
  async publish(stored: Row[]): Promise<void> {
    const byGuild = new Map<string, Row[]>();
    for (const r of stored) {
      const rows = byGuild.get(r.guild_id);
      if (rows) rows.push(r);
      else byGuild.set(r.guild_id, [r]);
    }
    for (const [guildId, rows] of byGuild) await this.archive.add(guildId, rows);
  }
}
