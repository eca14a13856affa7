import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type CreateDiscussionChannelTool,
  type DiscussionCompleteTool,
} from '@dirigent/contracts';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { checkSummaryPath, SUMMARY_DIR } from '../adapters/summary-path';
import type { TurnCoordinatorConfig } from '../config';
import { requireAgent } from './agent-tools';
import { Channels } from './channels';
import { Identities } from './identities';
import { DiscordPort } from './ports';

/** Structured discussions: created by an agent with a guide, completed by its initiator. */
@Injectable()
export class Discussions {
  constructor(
    private readonly channels: Channels,
    private readonly identities: Identities,
    private readonly discord: DiscordPort,
    @Inject(SERVICE_CONFIG) private readonly config: TurnCoordinatorConfig,
  ) {}

  async create(r: CreateDiscussionChannelTool): Promise<{ channelId: string }> {
    const initiator = await requireAgent(this.identities, r.callerAgentId);
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

  async complete(r: DiscussionCompleteTool): Promise<Record<string, never>> {
    const state = await this.channels.state(r.discussionChannelId);
    const d = state.discussion;
    if (state.mode !== 'discussion' || d === null) {
      throw new DomainError(ErrorCodes.NOT_FOUND, `${r.discussionChannelId} is not a discussion`);
    }
    if (d.initiatorAgentId !== r.callerAgentId) {
      throw new DomainError(ErrorCodes.FORBIDDEN, 'only the initiator may complete the discussion');
    }
    if (r.summaryPath === undefined && r.summary !== undefined) {
      await this.channels.execute(r.discussionChannelId, {
        type: 'CompleteDiscussion',
        data: { callerAgentId: r.callerAgentId, summary: r.summary },
      });
      return {};
    }
    const workspace = this.config.DIRIGENT_WORKSPACE;
    // The default workspace may not exist yet on a fresh install.
    await mkdir(join(workspace, SUMMARY_DIR), { recursive: true }).catch(() => undefined);
    const checked = await checkSummaryPath(workspace, r.summaryPath ?? '');
    if (!checked.ok) {
      throw new DomainError(
        checked.reason === 'no-workspace' ? ErrorCodes.UNAVAILABLE : ErrorCodes.BAD_REQUEST,
        checked.message,
        { field: 'summaryPath', reason: checked.reason },
      );
    }
    await this.channels.execute(r.discussionChannelId, {
      type: 'CompleteDiscussion',
      data: {
        callerAgentId: r.callerAgentId,
        summaryPath: checked.path,
        ...(r.summary !== undefined ? { summary: r.summary } : {}),
      },
    });
    return {};
  }
}
