import { Injectable } from '@nestjs/common';
import { DiscordAPIError, HTTPError, type Client, type GuildTextBasedChannel } from 'discord.js';
import { PermanentError } from '@dirigent/messaging';
import { classifyFailure, type DiscordFailure } from '../domain/errors';
import { restCalls } from './metrics';

export type DiscordOp = 'send' | 'delete' | 'react' | 'typing';

function failureOf(e: unknown): DiscordFailure {
  if (e instanceof DiscordAPIError) return { status: e.status, code: Number(e.code) };
  if (e instanceof HTTPError) return { status: e.status };
  return {};
}

/**
 * Discord REST calls made for commands: each failure becomes a retry (a thrown error, so
 * the consumer naks with backoff) or a dead letter (a PermanentError). 429s wait inside
 * discord.js's REST queue.
 */
@Injectable()
export class DiscordRest {
  /**
   * A guild text channel of `guildId`: from the cache when this replica's shards hold the
   * guild, else fetched with its guild over REST, uncached (nothing would keep it current).
   */
  async textChannel(
    client: Client<true>,
    guildId: string,
    channelId: string,
  ): Promise<GuildTextBasedChannel> {
    const fetchUncached = async () => {
      const guild = await this.call('send', () =>
        client.guilds.fetch({ guild: guildId, cache: false, force: true }),
      );
      return this.call('send', () =>
        guild.channels.fetch(channelId, { cache: false, force: true }),
      );
    };
    const channel = client.channels.cache.get(channelId) ?? (await fetchUncached());
    if (!channel || !channel.isTextBased() || channel.isDMBased()) {
      throw new PermanentError(`channel ${channelId} is not a guild text channel`);
    }
    if (channel.guildId !== guildId) {
      throw new PermanentError(`channel ${channelId} is not in guild ${guildId}`);
    }
    return channel;
  }

  /** Runs a Discord call, turning its failure into retry (rethrow) or dead letter. */
  async call<T>(op: DiscordOp, fn: () => Promise<T>): Promise<T> {
    try {
      const result = await fn();
      restCalls.inc({ op, outcome: 'ok' });
      return result;
    } catch (e) {
      const failure = failureOf(e);
      const verdict = classifyFailure(failure, op === 'send' || op === 'delete' ? op : 'other');
      restCalls.inc({ op, outcome: verdict });
      if (verdict === 'already-done') return undefined as T;
      const text = `${(e as Error).message} (status ${failure.status ?? 'none'}, code ${failure.code ?? 'none'})`;
      if (verdict === 'permanent') throw new PermanentError(text);
      throw new Error(text);
    }
  }
}
