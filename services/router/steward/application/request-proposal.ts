import { Inject, Injectable } from '@nestjs/common';
import { KeyedQueue } from '@dirigent/messaging';
import { proposalLimitRefusal } from '@dirigent/router-domain';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import type { ProposalRequest, ProposalService as SkillProposals } from '@dirigent/skills';
import type { RouterConfig } from '../../config';
import { StewardLifecycle } from '../steward.lifecycle';
import { ProposalService } from './proposals';
import { ProposalReadModel } from './ports';

const HOUR_MS = 3_600_000;

/**
 * The skill system's way to the moderators: a proposal, unless the limits refuse it — at most
 * `DIRIGENT_PROPOSALS_PENDING_MAX` pending in the guild and `DIRIGENT_PROPOSALS_PER_MEMBER_HOUR`
 * asked by one member in an hour, counted in the proposal table (read after this process's
 * own writes; one guild's requests one at a time here), so moderators are not flooded.
 */
@Injectable()
export class RequestProposal implements SkillProposals {
  private readonly lanes = new KeyedQueue();

  constructor(
    private readonly proposals: ProposalService,
    private readonly readModel: ProposalReadModel,
    private readonly lifecycle: StewardLifecycle,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
  ) {}

  request(p: ProposalRequest): Promise<{ proposalId: string } | { refused: string }> {
    return this.lanes.run(p.guildId, async () => {
      const refused = await this.refusal(p.guildId, p.requestedBy.userId);
      return refused ? { refused } : this.proposals.propose(p);
    });
  }

  /** Why one more proposal may not be made in the guild (for the member), if it may not. */
  async refusal(guildId: string, userId?: string): Promise<string | undefined> {
    await this.lifecycle.caughtUp(this.proposals.lastWritten);
    const since = new Date(this.clock.now() - HOUR_MS);
    const [pending, memberLastHour] = await Promise.all([
      this.readModel.pendingCount(guildId),
      userId ? this.readModel.requestedSince(guildId, userId, since) : undefined,
    ]);
    return proposalLimitRefusal(
      { pending, memberLastHour },
      {
        pendingMax: this.config.DIRIGENT_PROPOSALS_PENDING_MAX,
        perMemberHour: this.config.DIRIGENT_PROPOSALS_PER_MEMBER_HOUR,
      },
    );
  }
}
