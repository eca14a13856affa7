import { Inject, Injectable } from '@nestjs/common';
import type { ProposalView } from '@dirigent/contracts';
import { proposalText, type ProposalNames } from '@dirigent/router-domain';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../../config';
import { ModChannels } from './mod-channels';
import { StewardDiscord } from './ports';

/**
 * What the steward says of a proposal in the guild's mod channel: the request, with names
 * instead of ids (the asker's and a named member's display names, the channels') and the
 * moderators mentioned once (`DIRIGENT_MOD_ROLE_ID`, else the roles holding ManageGuild), and
 * its outcome. A name Discord cannot give is left out; the post then shows the id.
 */
@Injectable()
export class ProposalPosts {
  constructor(
    private readonly discord: StewardDiscord,
    private readonly modChannels: ModChannels,
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
  ) {}

  /** Posts the request in the mod channel (made if missing); `key` de-duplicates the post. */
  async request(view: ProposalView, key: string) {
    const modChannelId = await this.modChannels.ensure(view.guildId);
    const names = await this.names(view);
    await this.discord.post(
      view.guildId,
      modChannelId,
      proposalText(view, names),
      key,
      names.mentionRoleIds,
    );
  }

  /** Says a line about the proposal in the mod channel its post is in. */
  say(view: ProposalView & { modChannelId: string }, text: string, key: string) {
    return this.discord.post(view.guildId, view.modChannelId, text, key);
  }

  private async names(view: ProposalView): Promise<ProposalNames> {
    const { guildId } = view;
    const modRoleId = this.config.DIRIGENT_MOD_ROLE_ID;
    const userIds = [view.requestedBy.userId, view.args.userId].filter(
      (u): u is string => typeof u === 'string',
    );
    const [channels, members, roles] = await Promise.all([
      this.discord.channels(guildId).catch(() => undefined),
      Promise.all(userIds.map((u) => this.discord.member(guildId, u).catch(() => undefined))),
      modRoleId ? Promise.resolve(undefined) : this.discord.roles(guildId).catch(() => undefined),
    ]);
    return {
      channels: Object.fromEntries((channels ?? []).map((c) => [c.channelId, c.name])),
      members: Object.fromEntries(
        userIds.flatMap((u, i) => (members[i]?.displayName ? [[u, members[i].displayName]] : [])),
      ),
      mentionRoleIds: modRoleId
        ? [modRoleId]
        : (roles ?? [])
            .filter((r) => r.position > 0 && !r.managed && r.permissions.includes('ManageGuild'))
            .map((r) => r.roleId)
            .slice(0, 5),
    };
  }
}
