import { Injectable } from '@nestjs/common';
import {
  DiscordAPIError,
  HTTPError,
  type Client,
  type Guild,
  type GuildBasedChannel,
  type GuildMember,
} from 'discord.js';
import { DomainError, ErrorCodes } from '@dirigent/contracts';
import { DiscordConnection } from './discord-connection';
import { restCalls } from './metrics';

/** A Discord REST failure as the reply error a query answers with. */
export function asDomainError(e: unknown, what: string): unknown {
  if (e instanceof DomainError) return e;
  if (!(e instanceof DiscordAPIError)) return e;
  if (e.status === 404) return new DomainError(ErrorCodes.NOT_FOUND, `${what}: ${e.message}`);
  if (e.status === 403) return new DomainError(ErrorCodes.FORBIDDEN, `${what}: ${e.message}`);
  if (e.status === 400) return new DomainError(ErrorCodes.BAD_REQUEST, `${what}: ${e.message}`);
  return new DomainError(ErrorCodes.UNAVAILABLE, `${what}: Discord answered ${e.status}`);
}

/** Attempts of a request/reply Discord call answered 5xx (or lost) before giving up. */
const RPC_ATTEMPTS = 3;
const RPC_BACKOFF_MS = [200, 600];
/** Discord's page size for the bot's guild list. */
const GUILD_PAGE = 200;

/** discord.js's own refusals (`DiscordjsError` and kin) carry a string code. */
const libraryCode = (e: unknown): string | undefined =>
  typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : undefined;

function retriable(e: unknown): boolean {
  if (e instanceof DiscordAPIError || e instanceof HTTPError) return e.status >= 500;
  return !(e instanceof DomainError) && libraryCode(e) === undefined;
}

function failure(e: unknown, what: string): DomainError {
  const mapped = asDomainError(e, what);
  if (mapped instanceof DomainError) return mapped;
  const code = libraryCode(e);
  if (code) {
    const missing = /Unowned|Unknown|NotFound/.test(code);
    return new DomainError(
      missing ? ErrorCodes.NOT_FOUND : ErrorCodes.BAD_REQUEST,
      `${what}: ${(e as Error).message}`,
    );
  }
  return new DomainError(ErrorCodes.UNAVAILABLE, `${what}: ${(e as Error).message}`);
}

/** The connected client and its guilds, for queries: UNAVAILABLE while there is no Discord. */
@Injectable()
export class DiscordGuilds {
  constructor(readonly connection: DiscordConnection) {}

  client(): Client<true> {
    const client = this.connection.client;
    // Logged in is enough: what the held shards do not cache is fetched over REST.
    if (!client || !this.connection.loggedIn) {
      throw new DomainError(ErrorCodes.UNAVAILABLE, 'discord-ingest has no Discord connection');
    }
    return client as Client<true>;
  }

  /**
   * The guild: from the gateway's cache when this process's shards hold it, else fetched
   * over REST without caching it (nothing would keep such a copy up to date).
   */
  async guild(guildId: string): Promise<Guild> {
    const client = this.client();
    const cached = client.guilds.cache.get(guildId);
    if (cached) return cached;
    return this.call(`guild ${guildId}`, () =>
      client.guilds.fetch({ guild: guildId, cache: false, force: true }),
    );
  }

  /** Whether the gateway keeps this guild object current (it is in the client's cache). */
  live(guild: Guild): boolean {
    return guild.client.guilds.cache.get(guild.id) === guild;
  }

  /** The ids of every guild the bot is in, whichever replica's shards hold them (REST). */
  async guildIds(): Promise<string[]> {
    const client = this.client();
    const ids: string[] = [];
    for (;;) {
      const after = ids.at(-1);
      const page = await this.call('guilds of the bot', () =>
        client.guilds.fetch({ limit: GUILD_PAGE, ...(after ? { after } : {}) }),
      );
      ids.push(...page.keys());
      if (page.size < GUILD_PAGE) return ids;
    }
  }

  /** The guild's channels: the gateway's when it holds the guild, else listed over REST. */
  async channels(guild: Guild): Promise<GuildBasedChannel[]> {
    if (this.live(guild)) return [...guild.channels.cache.values()];
    const listed = await this.call(`channels of ${guild.id}`, () =>
      guild.channels.fetch(undefined, { cache: false }),
    );
    return [...listed.values()].filter((c): c is NonNullable<typeof c> => !!c);
  }

  /** A channel of the guild (NOT_FOUND when it is in another guild). */
  async channel(guild: Guild, channelId: string): Promise<GuildBasedChannel> {
    const live = this.live(guild);
    const channel =
      (live ? guild.channels.cache.get(channelId) : undefined) ??
      (await this.call(`channel ${channelId}`, () =>
        guild.channels.fetch(channelId, { cache: live, force: !live }),
      ));
    if (!channel || channel.guildId !== guild.id) {
      throw new DomainError(ErrorCodes.NOT_FOUND, `channel ${channelId} not in guild ${guild.id}`);
    }
    return channel;
  }

  async member(guild: Guild, userId: string): Promise<GuildMember> {
    const live = this.live(guild);
    return (
      (live ? guild.members.cache.get(userId) : undefined) ??
      (await this.call(`member ${userId} of ${guild.id}`, () =>
        guild.members.fetch({ user: userId, cache: live, force: !live }),
      ))
    );
  }

  /**
   * Creates a thing over REST (`POST route` with `body`) and answers its id. discord.js's own
   * create methods file what Discord answers under the cached guild, so they fail for a guild
   * whose shard another replica holds; that replica's gateway caches the new thing anyway.
   */
  async create(what: string, route: `/${string}`, body: Record<string, unknown>): Promise<string> {
    const client = this.client();
    const made = await this.call(what, () => client.rest.post(route, { body }));
    return (made as { id: string }).id;
  }

  /**
   * A Discord call made for a request/reply: 429s wait inside discord.js's REST queue, 5xx
   * and lost requests are tried again (three attempts), and what fails for good becomes the
   * contract's error (403 `FORBIDDEN`, 404 `NOT_FOUND`, 400 `BAD_REQUEST`, else `UNAVAILABLE`).
   */
  async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await fn();
        restCalls.inc({ op: 'rpc', outcome: 'ok' });
        return result;
      } catch (e) {
        const again = attempt < RPC_ATTEMPTS && retriable(e);
        restCalls.inc({ op: 'rpc', outcome: again ? 'transient' : 'permanent' });
        if (!again) throw failure(e, what);
        await new Promise((r) => setTimeout(r, RPC_BACKOFF_MS[attempt - 1] ?? 1000));
      }
    }
  }
}
