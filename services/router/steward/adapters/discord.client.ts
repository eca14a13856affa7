import {
  DomainError,
  EnvelopeTypes,
  ErrorCodes,
  Subjects,
  type CreateChannelResult,
  type DiscordSelfResult,
  type GuildChannelInfo,
  type GuildsResult,
  type MemberPermissionsResult,
  type RoleInfo,
  type RolesResult,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { StewardDiscord, type StewardMember } from '../application/ports';

/** The ingest's queries, RPCs and commands, over NATS; a refusal is thrown as its DomainError. */
export class NatsStewardDiscord extends StewardDiscord {
  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  private self?: Promise<string>;

  selfId(): Promise<string> {
    this.self ??= this.ask<DiscordSelfResult>(Subjects.discord.querySelf, {}).then((r) => r.userId);
    this.self.catch(() => (this.self = undefined));
    return this.self;
  }

  private async ask<T>(subject: string, data: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    const reply = await this.messaging.request<T>(subject, data, timeoutMs);
    if (!reply.ok) throw new DomainError(reply.error.code, `${subject}: ${reply.error.message}`);
    return reply.data;
  }

  async guildIds(): Promise<string[]> {
    const r = await this.ask<GuildsResult>(Subjects.discord.queryGuilds, {});
    return r.guilds.map((g) => g.guildId);
  }

  async channels(guildId: string): Promise<GuildChannelInfo[] | undefined> {
    const r = await this.ask<GuildsResult>(Subjects.discord.queryGuilds, { guildId });
    return r.guilds.find((g) => g.guildId === guildId)?.channels;
  }

  async createModChannel(guildId: string, name: string): Promise<string> {
    const r = await this.ask<CreateChannelResult>(
      Subjects.discord.rpcCreateChannel,
      { guildId, name, private: true, memberIds: [] },
      Math.max(this.timeoutMs, 10_000),
    );
    return r.channelId;
  }

  async createChannel(guildId: string, name: string): Promise<string> {
    const r = await this.ask<CreateChannelResult>(
      Subjects.discord.rpcCreateChannel,
      { guildId, name, private: false, memberIds: [] },
      Math.max(this.timeoutMs, 10_000),
    );
    return r.channelId;
  }

  async memberPermissions(guildId: string, userId: string): Promise<string[]> {
    try {
      const r = await this.ask<MemberPermissionsResult>(Subjects.discord.queryMemberPermissions, {
        guildId,
        userId,
      });
      return r.permissions ?? [];
    } catch (e) {
      // Not a member (any more): no permissions, not a failure.
      if (e instanceof DomainError && e.code === ErrorCodes.NOT_FOUND) return [];
      throw e;
    }
  }

  async member(guildId: string, userId: string): Promise<StewardMember | undefined> {
    try {
      const r = await this.ask<MemberPermissionsResult>(Subjects.discord.queryMemberPermissions, {
        guildId,
        userId,
      });
      return {
        permissions: r.permissions ?? [],
        displayName: r.displayName,
        highestRolePosition: r.highestRolePosition ?? 0,
        owner: r.owner ?? false,
      };
    } catch (e) {
      if (e instanceof DomainError && e.code === ErrorCodes.NOT_FOUND) return undefined;
      throw e;
    }
  }

  async roles(guildId: string): Promise<RoleInfo[]> {
    return (await this.ask<RolesResult>(Subjects.discord.queryRoles, { guildId })).roles;
  }

  async post(
    guildId: string,
    channelId: string,
    content: string,
    id: string,
    mentionRoleIds?: string[],
  ): Promise<void> {
    await this.messaging.publishEvent(
      Subjects.discord.cmdSendMessage,
      EnvelopeTypes.sendMessage,
      {
        guildId,
        channelId,
        content,
        purpose: 'notice',
        ...(mentionRoleIds?.length ? { mentionRoleIds } : {}),
      },
      { id },
    );
  }
}
