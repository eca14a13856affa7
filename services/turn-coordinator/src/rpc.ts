import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ChannelGetRequest,
  CheckTurnRequest,
  CreateChatChannelTool,
  CreateDiscussionChannelTool,
  CreateMembersChannelTool,
  DiscussionCompleteTool,
  DomainError,
  ErrorCodes,
  IdentityListRequest,
  IdentityRemoveRequest,
  IdentityRescanRequest,
  IdentityUpsertRequest,
  RegisterTool,
  SetModeRequest,
  SetShuffleRequest,
  SetWakeModeRequest,
  Subjects,
  subject,
  type IdentityEntry as WireIdentity,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  evaluateCheckTurn,
  isChannelMode,
  isConversational,
  LOCKED_MODE_SET,
  type AgentRef,
  type CheckTurnResult,
} from '@dirigent/turn-domain';
import { Channels } from './channels';
import type { TurnCoordinatorConfig } from './config';
import { DiscordPort } from './discord';
import { Identities, toWire } from './identities';
import { checkSummaryPath } from './summary-path';
import { channelView } from './views';

/** The coordinator's request/reply surface: check-turn, admin and the agent tools. */
@Injectable()
export class Rpc {
  private readonly log = new Logger('rpc');

  constructor(
    private readonly messaging: Messaging,
    private readonly channels: Channels,
    private readonly identities: Identities,
    private readonly discord: DiscordPort,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
  ) {}

  serve(): void {
    const m = this.messaging;
    m.serve(Subjects.turn.check, { payload: CheckTurnRequest, handler: (r) => this.check(r) });
    m.serve(Subjects.admin.identityUpsert, {
      payload: IdentityUpsertRequest,
      handler: async (r) => {
        const state = await this.identities.execute({ type: 'UpsertIdentity', data: r });
        return toWire(state.entries.find((e) => e.discordUserId === r.discordUserId)!);
      },
    });
    m.serve(Subjects.admin.identityRemove, {
      payload: IdentityRemoveRequest,
      handler: async (r) => {
        const entry = r.discordUserId
          ? await this.identities.byDiscordUserId(r.discordUserId)
          : await this.identities.byAgentId(r.agentId ?? '');
        await this.identities.execute({ type: 'RemoveIdentity', data: r });
        return { removed: entry ? toWire(entry) : null };
      },
    });
    m.serve(Subjects.admin.identityList, {
      payload: IdentityListRequest,
      handler: async (r) => ({
        entries: (await this.identities.freshState()).entries
          .filter((e) => !r.discordUserId || e.discordUserId === r.discordUserId)
          .map(toWire),
      }),
    });
    m.serve(Subjects.admin.identityRescan, {
      payload: IdentityRescanRequest,
      handler: async (r) => ({
        imported: await this.identities.importFiles({
          identityFile: r.source === 'padded-cell' ? undefined : this.config.DIRIGENT_IDENTITY_FILE,
          egoFile: r.source === 'file' ? undefined : this.config.DIRIGENT_EGO_FILE,
        }),
      }),
    });
    m.serve(Subjects.admin.channelSetMode, {
      payload: SetModeRequest,
      handler: async (r) => {
        const current = await this.channels.state(r.channelId);
        const agents =
          isChannelMode(r.mode) && isConversational(r.mode) && !LOCKED_MODE_SET.has(current.mode)
            ? await this.discord.agentsIn(r.guildId, r.channelId).catch((e: Error) => {
                // Without the ingest, start from the members already known; the next
                // message refreshes them.
                this.log.warn({ channelId: r.channelId, err: e.message }, 'members unknown');
                return undefined;
              })
            : undefined;
        const { state } = await this.channels.execute(r.channelId, {
          type: 'SetMode',
          data: { guildId: r.guildId, mode: r.mode, ...(agents ? { agents } : {}) },
        });
        return channelView(state);
      },
    });
    m.serve(Subjects.admin.channelSetShuffle, {
      payload: SetShuffleRequest,
      handler: async (r) => {
        const { state } = await this.channels.execute(r.channelId, {
          type: 'SetShuffle',
          data: { shuffle: r.shuffle ?? null },
        });
        return channelView(state);
      },
    });
    m.serve(Subjects.admin.channelSetWakeMode, {
      payload: SetWakeModeRequest,
      handler: async (r) => {
        const { state } = await this.channels.execute(r.channelId, {
          type: 'SetWakeMode',
          data: { wakeMode: r.wakeMode },
        });
        return channelView(state);
      },
    });
    m.serve(Subjects.admin.channelGet, {
      payload: ChannelGetRequest,
      handler: async (r) => channelView(await this.channels.freshState(r.channelId)),
    });
    m.serve(subject.tool('create-chat-channel'), {
      payload: CreateChatChannelTool,
      handler: (r) =>
        this.createChannel(r.callerAgentId, r.guildId, r.name, r.participants, 'chat'),
    });
    m.serve(subject.tool('create-report-channel'), {
      payload: CreateMembersChannelTool,
      handler: (r) => this.createChannel(r.callerAgentId, r.guildId, r.name, r.members, 'report'),
    });
    m.serve(subject.tool('create-work-channel'), {
      payload: CreateMembersChannelTool,
      handler: (r) => this.createChannel(r.callerAgentId, r.guildId, r.name, r.members, 'work'),
    });
    m.serve(subject.tool('create-discussion-channel'), {
      payload: CreateDiscussionChannelTool,
      handler: (r) => this.createDiscussion(r),
    });
    m.serve(subject.tool('discussion-complete'), {
      payload: DiscussionCompleteTool,
      handler: (r) => this.completeDiscussion(r),
    });
    m.serve(subject.tool('register'), {
      payload: RegisterTool,
      handler: async (r): Promise<WireIdentity> => {
        const state = await this.identities.execute({
          type: 'RegisterIdentity',
          data: {
            callerAgentId: r.callerAgentId,
            discordUserId: r.discordUserId,
            agentName: r.agentName ?? null,
          },
        });
        return toWire(state.entries.find((e) => e.agentId === r.callerAgentId)!);
      },
    });
  }

  /**
   * check-turn. The first check of a turn records the channel's latest message as the
   * turn's anchor; the answer does not depend on it, so it is not awaited: the command is
   * queued on the channel before anything that arrives later, which keeps the anchor right.
   */
  async check(r: CheckTurnRequest): Promise<CheckTurnResult> {
    let state = r.messageId
      ? await this.channels.stateAfter(r.channelId, r.messageId, this.config.DIRIGENT_CHECK_WAIT_MS)
      : await this.channels.state(r.channelId);
    // A refusal is only given on the latest state: with a second replica (a rolling deploy)
    // the cache may be a moment behind a grant the agent has already heard of.
    if (!evaluateCheckTurn(state, r.agentId).allowed) {
      state = await this.channels.freshState(r.channelId);
    }
    const turn = state.currentTurn;
    if (turn && turn.agentId === r.agentId && turn.phase === 'running' && !turn.anchorChecked) {
      this.channels
        .execute(r.channelId, { type: 'CheckTurn', data: { agentId: r.agentId } })
        .catch((e: Error) =>
          this.log.warn({ channelId: r.channelId, err: e.message }, 'anchor not recorded'),
        );
    }
    return evaluateCheckTurn(state, r.agentId);
  }

  private async requireAgent(callerAgentId: string) {
    const entry = await this.identities.byAgentId(callerAgentId);
    if (!entry) {
      throw new DomainError(ErrorCodes.FORBIDDEN, `${callerAgentId} is not a registered agent`);
    }
    return entry;
  }

  private async createChannel(
    callerAgentId: string,
    guildId: string,
    name: string,
    members: string[] | undefined,
    mode: 'chat' | 'report' | 'work',
  ): Promise<{ channelId: string }> {
    const caller = await this.requireAgent(callerAgentId);
    const memberIds = [caller.discordUserId, ...(members ?? [])];
    const { channelId } = await this.discord.createChannel(guildId, name, memberIds);
    const agents: AgentRef[] = await this.identities.resolve(memberIds);
    await this.channels.execute(channelId, {
      type: 'CreateChannel',
      data: { guildId, mode, agents, createdByAgentId: callerAgentId },
    });
    return { channelId };
  }

  private async createDiscussion(r: CreateDiscussionChannelTool): Promise<{ channelId: string }> {
    const initiator = await this.requireAgent(r.callerAgentId);
    // The callback must be a channel the moderator can see in that guild.
    await this.discord.members(r.callbackGuildId, r.callbackChannelId).catch((e: DomainError) => {
      throw new DomainError(
        ErrorCodes.BAD_REQUEST,
        `callback channel ${r.callbackChannelId} is not usable: ${e.message}`,
        { field: 'callbackChannelId' },
      );
    });
    const memberIds = [initiator.discordUserId, ...r.participants];
    const name = `discussion-${r.callerAgentId}`.slice(0, 100);
    const { channelId } = await this.discord.createChannel(r.callbackGuildId, name, memberIds);
    await this.channels.execute(channelId, {
      type: 'CreateDiscussion',
      data: {
        guildId: r.callbackGuildId,
        agents: await this.identities.resolve(memberIds),
        initiatorAgentId: r.callerAgentId,
        initiatorDiscordUserId: initiator.discordUserId,
        callbackGuildId: r.callbackGuildId,
        callbackChannelId: r.callbackChannelId,
        guide: r.guide,
        participants: r.participants,
      },
    });
    return { channelId };
  }

  private async completeDiscussion(r: DiscussionCompleteTool): Promise<Record<string, never>> {
    const state = await this.channels.state(r.discussionChannelId);
    const d = state.discussion;
    if (state.mode !== 'discussion' || d === null) {
      throw new DomainError(ErrorCodes.NOT_FOUND, `${r.discussionChannelId} is not a discussion`);
    }
    if (d.initiatorAgentId !== r.callerAgentId) {
      throw new DomainError(ErrorCodes.FORBIDDEN, 'only the initiator may complete the discussion');
    }
    const checked = await checkSummaryPath(this.config.DIRIGENT_WORKSPACE, r.summaryPath);
    if (!checked.ok) {
      throw new DomainError(
        checked.reason === 'no-workspace' ? ErrorCodes.UNAVAILABLE : ErrorCodes.BAD_REQUEST,
        checked.message,
        { field: 'summaryPath', reason: checked.reason },
      );
    }
    await this.channels.execute(r.discussionChannelId, {
      type: 'CompleteDiscussion',
      data: { callerAgentId: r.callerAgentId, summaryPath: checked.path },
    });
    return {};
  }
}
