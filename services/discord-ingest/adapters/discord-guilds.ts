import { Injectable } from '@nestjs/common';
import { DiscordAPIError, type Client, type Guild } from 'discord.js';
import { DomainError, ErrorCodes } from '@dirigent/contracts';
import { DiscordConnection } from './discord-connection';

/** A Discord REST failure as the reply error a query answers with. */
export function asDomainError(e: unknown, what: string): unknown {
  if (!(e instanceof DiscordAPIError)) return e;
  if (e.status === 404) return new DomainError(ErrorCodes.NOT_FOUND, `${what}: ${e.message}`);
  if (e.status === 403) return new DomainError(ErrorCodes.FORBIDDEN, `${what}: ${e.message}`);
  if (e.status === 400) return new DomainError(ErrorCodes.BAD_REQUEST, `${what}: ${e.message}`);
  return new DomainError(ErrorCodes.UNAVAILABLE, `${what}: Discord answered ${e.status}`);
}

/** The connected client and its guilds, for queries: UNAVAILABLE while there is no Discord. */
@Injectable()
export class DiscordGuilds {
  constructor(readonly connection: DiscordConnection) {}

  client(): Client<true> {
    const client = this.connection.client;
    if (!client?.isReady()) {
      throw new DomainError(ErrorCodes.UNAVAILABLE, 'discord-ingest has no Discord connection');
    }
    return client;
  }

  async guild(guildId: string): Promise<Guild> {
    const client = this.client();
    try {
      return client.guilds.cache.get(guildId) ?? (await client.guilds.fetch(guildId));
    } catch (e) {
      throw asDomainError(e, `guild ${guildId}`);
    }
  }
}
