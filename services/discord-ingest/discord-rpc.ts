import { Injectable, Logger } from '@nestjs/common';
import {
  ChannelType,
  DiscordAPIError,
  OverwriteType,
  PermissionFlagsBits,
  type Client,
  type Guild,
  type GuildBasedChannel,
} from 'discord.js';
import {
  ChannelMembersQuery,
  CreateChannelRequest,
  DomainError,
  ErrorCodes,
  GuildsQuery,
  Subjects,
  type ChannelMembersResult,
  type CreateChannelResult,
  type GuildsResult,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { DiscordConnection } from './discord-connection';
import { privateChannelOverwrites } from './domain/overwrites';

function asDomainError(e: unknown, what: string): unknown {
  if (!(e instanceof DiscordAPIError)) return e;
  if (e.status === 404) return new DomainError(ErrorCodes.NOT_FOUND, `${what}: ${e.message}`);
  if (e.status === 403) return new DomainError(ErrorCodes.FORBIDDEN, `${what}: ${e.message}`);
  if (e.status === 400) return new DomainError(ErrorCodes.BAD_REQUEST, `${what}: ${e.message}`);
  return new DomainError(ErrorCodes.UNAVAILABLE, `${what}: Discord answered ${e.status}`);
}

/** Discord queries and RPCs over NATS request/reply: thin adapters over discord.js. */
@Injectable()
export class DiscordRpc {
  private readonly log = new Logger('discord-rpc');

  constructor(
    private readonly messaging: Messaging,
    private readonly connection: DiscordConnection,
  ) {}

  serve(): void {
    this.messaging.serve(Subjects.discord.queryChannelMembers, {
      payload: ChannelMembersQuery,
      handler: (q) => this.channelMembers(q),
    });
    this.messaging.serve(Subjects.discord.queryGuilds, {
      payload: GuildsQuery,
      handler: (q) => this.guilds(q),
    });
    this.messaging.serve(Subjects.discord.rpcCreateChannel, {
      payload: CreateChannelRequest,
      handler: (r) => this.createChannel(r),
    });
  }

  private client(): Client<true> {
    const client = this.connection.client;
    if (!client?.isReady()) {
      throw new DomainError(ErrorCodes.UNAVAILABLE, 'discord-ingest has no Discord connection');
    }
    return client;
  }

  private async guild(guildId: string): Promise<Guild> {
    const client = this.client();
    try {
      return client.guilds.cache.get(guildId) ?? (await client.guilds.fetch(guildId));
    } catch (e) {
      throw asDomainError(e, `guild ${guildId}`);
    }
  }

  /** Members who can see the channel: from the member cache, listed over REST on a miss. */
  async channelMembers(q: ChannelMembersQuery): Promise<ChannelMembersResult> {
    const guild = await this.guild(q.guildId);
    let channel: GuildBasedChannel | null;
    try {
      channel = guild.channels.cache.get(q.channelId) ?? (await guild.channels.fetch(q.channelId));
    } catch (e) {
      throw asDomainError(e, `channel ${q.channelId}`);
    }
    if (!channel) throw new DomainError(ErrorCodes.NOT_FOUND, `channel ${q.channelId} not found`);
    if (guild.members.cache.size < guild.memberCount) {
      this.log.debug(`member cache miss in ${guild.id}; listing over REST`);
      await guild.members.list({ limit: 1000, cache: true });
    }
    const members = guild.members.cache
      .filter((m) => channel.permissionsFor(m).has(PermissionFlagsBits.ViewChannel))
      .map((m) => ({ userId: m.id, isBot: m.user.bot }));
    return { members };
  }

  /** The guilds the bot is in (from the gateway's cache) with their text channels. */
  async guilds(q: GuildsQuery): Promise<GuildsResult> {
    const client = this.client();
    const guilds = q.guildId ? [await this.guild(q.guildId)] : [...client.guilds.cache.values()];
    return {
      guilds: guilds.map((g) => ({
        guildId: g.id,
        name: g.name,
        channels: [...g.channels.cache.values()]
          .filter((c) => c.type === ChannelType.GuildText)
          .sort((a, b) => ('position' in a && 'position' in b ? a.position - b.position : 0))
          .map((c) => ({
            channelId: c.id,
            name: c.name,
            private: !c.permissionsFor(g.roles.everyone).has(PermissionFlagsBits.ViewChannel),
          })),
      })),
    };
  }

  /** A text channel; a private one is hidden from @everyone and open to members + moderator. */
  async createChannel(r: CreateChannelRequest): Promise<CreateChannelResult> {
    const guild = await this.guild(r.guildId);
    const overwrites = r.private
      ? privateChannelOverwrites({
          guildId: guild.id,
          memberIds: r.memberIds,
          moderatorId: this.connection.moderatorId,
          botId: this.client().user.id,
        })
      : [];
    try {
      const channel = await guild.channels.create({
        name: r.name,
        type: ChannelType.GuildText,
        permissionOverwrites: overwrites.map((o) => ({
          id: o.id,
          type: o.type === 0 ? OverwriteType.Role : OverwriteType.Member,
          allow: o.allow,
          deny: o.deny,
        })),
      });
      return { channelId: channel.id };
    } catch (e) {
      throw asDomainError(e, `create channel in ${guild.id}`);
    }
  }
}
