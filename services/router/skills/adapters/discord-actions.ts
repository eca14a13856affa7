import {
  compareSnowflakes,
  EnvelopeTypes,
  ErrorCodes,
  Subjects,
  type CreateChannelResult,
  type MemberPermissionsResult,
  type RolesResult,
  type GuildsResult,
  type Reply,
  type SendMessageCommand,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { SkillError, type DiscordActions, type MemberRights } from '@dirigent/skills';

/**
 * The skills' Discord: the ingest's RPCs over NATS (`Subjects.discord.rpc*`), each in the
 * guild of the call; the ingest's error codes (`FORBIDDEN`, `NOT_FOUND`, …) come back as
 * {@link SkillError}s. Posts are JetStream commands deduplicated by their id.
 */
export class NatsDiscordActions implements DiscordActions {
  private bot?: string;

  constructor(
    private readonly messaging: Messaging,
    private readonly timeoutMs: number,
  ) {}

  private async rpc<T>(subject: string, data: unknown): Promise<T> {
    const reply: Reply<T> = await this.messaging.request<T>(subject, data, this.timeoutMs);
    if (!reply.ok) throw new SkillError(reply.error.code, reply.error.message);
    return reply.data;
  }

  createPoll(r: Parameters<DiscordActions['createPoll']>[0]) {
    return this.rpc<{ messageId: string }>(Subjects.discord.rpcCreatePoll, r);
  }

  createThread(r: Parameters<DiscordActions['createThread']>[0]) {
    return this.rpc<{ threadId: string }>(Subjects.discord.rpcCreateThread, r);
  }

  async pinMessage(r: Parameters<DiscordActions['pinMessage']>[0]) {
    await this.rpc(Subjects.discord.rpcPinMessage, r);
  }

  /**
   * A new channel. `adoptExisting` (a write the journal saw started and not finished) takes a
   * channel of that name already there, so a run resumed after a SIGKILL makes no second one;
   * otherwise a channel a member made under that name is left alone.
   */
  async createChannel(r: Parameters<DiscordActions['createChannel']>[0]) {
    const { adoptExisting, ...request } = r;
    if (adoptExisting) {
      const listed = await this.rpc<GuildsResult>(Subjects.discord.queryGuilds, {
        guildId: r.guildId,
      });
      // The newest of that name: the one the interrupted run made, not an older namesake.
      const [existing] = (listed.guilds.find((g) => g.guildId === r.guildId)?.channels ?? [])
        .filter((c) => c.name === r.name)
        .sort((a, b) => compareSnowflakes(b.channelId, a.channelId));
      if (existing) return { channelId: existing.channelId };
    }
    return this.rpc<CreateChannelResult>(Subjects.discord.rpcCreateChannel, request);
  }

  createRole(r: Parameters<DiscordActions['createRole']>[0]) {
    return this.rpc<{ roleId: string }>(Subjects.discord.rpcCreateRole, r);
  }

  async assignRole(r: Parameters<DiscordActions['assignRole']>[0]) {
    await this.rpc(Subjects.discord.rpcAssignRole, r);
  }

  async setChannelPermissions(r: Parameters<DiscordActions['setChannelPermissions']>[0]) {
    await this.rpc(Subjects.discord.rpcSetChannelPermissions, r);
  }

  async post(guildId: string, channelId: string, content: string, id: string) {
    const cmd: SendMessageCommand = { guildId, channelId, content, purpose: 'notice' };
    await this.messaging.publishEvent(
      Subjects.discord.cmdSendMessage,
      EnvelopeTypes.sendMessage,
      cmd,
      { id },
    );
  }

  /**
   * `member-permissions`. NOT_FOUND means the member or the channel: asked again without the
   * channel, a member found means the channel is not the guild's (NOT_FOUND stands).
   */
  async member(guildId: string, userId: string, channelId?: string) {
    try {
      const r = await this.rpc<MemberPermissionsResult>(Subjects.discord.queryMemberPermissions, {
        guildId,
        userId,
        ...(channelId ? { channelId } : {}),
      });
      return {
        permissions: r.permissions,
        displayName: r.displayName,
        highestRolePosition: r.highestRolePosition ?? 0,
        owner: r.owner ?? false,
      } satisfies MemberRights;
    } catch (e) {
      if (!(e instanceof SkillError) || e.code !== ErrorCodes.NOT_FOUND) throw e;
      if (channelId && (await this.member(guildId, userId))) throw e;
      return undefined;
    }
  }

  async roles(guildId: string) {
    return (await this.rpc<RolesResult>(Subjects.discord.queryRoles, { guildId })).roles;
  }

  async botUserId(): Promise<string> {
    this.bot ??= (await this.rpc<{ userId: string }>(Subjects.discord.querySelf, {})).userId;
    return this.bot;
  }
}
