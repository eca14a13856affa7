import { Logger } from '@nestjs/common';
import { Subjects, type ChannelMembersResult } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { ChannelMembers } from '../application/clients';

const TTL_MS = 60_000;
const MAX = 100;

/**
 * `Subjects.discord.queryChannelMembers`, cached a minute per channel (a member list moves
 * slowly; routing must not wait on Discord). Humans first; empty when the ingest does not
 * answer (said once).
 */
export class NatsChannelMembers extends ChannelMembers {
  private readonly log = new Logger('router:members');
  private readonly cache = new Map<string, { at: number; ids: Promise<string[]> }>();
  private warned = false;

  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  list(guildId: string, channelId: string): Promise<string[]> {
    const hit = this.cache.get(channelId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.ids;
    const ids = this.fetch(guildId, channelId);
    this.cache.set(channelId, { at: Date.now(), ids });
    return ids;
  }

  private async fetch(guildId: string, channelId: string): Promise<string[]> {
    const reply = await this.messaging
      .request<ChannelMembersResult>(
        Subjects.discord.queryChannelMembers,
        { guildId, channelId },
        this.timeoutMs,
      )
      .catch((e: Error) => ({
        ok: false as const,
        error: { code: 'UNAVAILABLE', message: e.message },
      }));
    if (reply.ok) {
      const members = reply.data.members ?? [];
      return [...members.filter((m) => !m.isBot), ...members.filter((m) => m.isBot)]
        .slice(0, MAX)
        .map((m) => m.userId);
    }
    if (!this.warned) {
      this.warned = true;
      this.log.warn(
        `channel members unknown (${reply.error.code}): present users are recent authors`,
      );
    }
    return [];
  }
}
