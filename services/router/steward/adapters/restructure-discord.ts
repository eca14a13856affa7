import {
  DomainError,
  EnvelopeTypes,
  Subjects,
  type CreateChannelResult,
  type CreateRoleResult,
  type GuildChannelInfo,
  type GuildsResult,
  type MemberPermissionsResult,
  type RoleInfo,
  type RolesResult,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { RestructureDiscord } from '../application/restructure';

/** The ingest's RPCs a restructure makes, over NATS; a refusal is thrown as its DomainError. */
export class NatsRestructureDiscord extends RestructureDiscord {
  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  private async ask<T>(subject: string, data: unknown): Promise<T> {
    const reply = await this.messaging.request<T>(subject, data, Math.max(this.timeoutMs, 10_000));
    if (!reply.ok) throw new DomainError(reply.error.code, `${subject}: ${reply.error.message}`);
    return reply.data;
  }

  async channels(guildId: string): Promise<GuildChannelInfo[]> {
    const r = await this.ask<GuildsResult>(Subjects.discord.queryGuilds, { guildId });
    return r.guilds.find((g) => g.guildId === guildId)?.channels ?? [];
  }

  async createChannel(guildId: string, name: string): Promise<string> {
    const r = await this.ask<CreateChannelResult>(Subjects.discord.rpcCreateChannel, {
      guildId,
      name,
      private: false,
      memberIds: [],
    });
    return r.channelId;
  }

  async editChannel(
    guildId: string,
    channelId: string,
    change: { name?: string; categoryName?: string },
  ): Promise<void> {
    await this.ask(Subjects.discord.rpcEditChannel, { guildId, channelId, ...change });
  }

  async readOnly(guildId: string, channelId: string): Promise<void> {
    const bot = (await this.ask<{ userId: string }>(Subjects.discord.querySelf, {})).userId;
    await this.ask(Subjects.discord.rpcSetChannelPermissions, {
      guildId,
      channelId,
      overwrites: [
        { id: guildId, type: 'role', allow: [], deny: ['SendMessages'] },
        { id: bot, type: 'member', allow: ['SendMessages', 'ViewChannel'], deny: [] },
      ],
    });
  }

  async roles(guildId: string): Promise<RoleInfo[]> {
    return (await this.ask<RolesResult>(Subjects.discord.queryRoles, { guildId })).roles;
  }

  async botRank(guildId: string): Promise<{ position: number; owner: boolean }> {
    const bot = (await this.ask<{ userId: string }>(Subjects.discord.querySelf, {})).userId;
    const r = await this.ask<MemberPermissionsResult>(Subjects.discord.queryMemberPermissions, {
      guildId,
      userId: bot,
    });
    return { position: r.highestRolePosition ?? 0, owner: r.owner ?? false };
  }

  async createRole(guildId: string, name: string): Promise<string> {
    const r = await this.ask<CreateRoleResult>(Subjects.discord.rpcCreateRole, { guildId, name });
    return r.roleId;
  }

  async post(guildId: string, channelId: string, content: string, id: string): Promise<void> {
    await this.messaging.publishEvent(
      Subjects.discord.cmdSendMessage,
      EnvelopeTypes.sendMessage,
      { guildId, channelId, content, purpose: 'notice' },
      { id },
    );
  }
}
