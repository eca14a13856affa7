import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ProposalView } from '@dirigent/contracts';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../../config';
import { ProposalService } from './proposals';
import { ProposalReadModel } from './ports';
import { RequestProposal } from './request-proposal';

const DAY_MS = 86_400_000;
/** Settled without being done: the subject may be asked again after the re-ask period. */
const DECLINED: ProposalView['status'][] = ['rejected', 'expired', 'failed'];

/** What upkeep proposes about one subject (a topic, a channel, a group). */
export interface UpkeepProposal {
  channelId: string;
  skillId: string;
  tool: string;
  args: Record<string, unknown>;
  reason: string;
}

/**
 * Upkeep's proposals, one subject at a time: at most one proposal per subject (its id the
 * subject's, `<base>-<n>`), none while one is pending or done, a declined one not asked again
 * for `DIRIGENT_UPKEEP_REASK_DAYS`, and nothing beyond the guild's pending limit. Upkeep asks
 * as the first configured agent.
 */
@Injectable()
export class UpkeepProposer {
  private readonly log = new Logger('router:steward');

  constructor(
    private readonly proposals: ProposalService,
    private readonly readModel: ProposalReadModel,
    private readonly requests: RequestProposal,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
  ) {}

  /** False when the guild's limit refused it (propose nothing more this survey). */
  async propose(guildId: string, base: string, what: string, p: UpkeepProposal) {
    const proposalId = await this.nextId(guildId, base);
    if (!proposalId) return true;
    const refused = await this.requests.refusal(guildId);
    if (refused) {
      this.log.log({ guildId, refused }, `${what} not proposed`);
      return false;
    }
    await this.proposals.propose({
      proposalId,
      guildId,
      ...p,
      requestedBy: { agentId: this.config.file.agents[0].id },
    });
    this.log.log({ proposalId, guildId }, `${what} proposed`);
    return true;
  }

  /**
   * The id the subject's next proposal gets, or undefined while one is pending or done, or a
   * declined one is younger than the re-ask period.
   */
  private async nextId(guildId: string, base: string): Promise<string | undefined> {
    const mine = (await this.readModel.list(guildId)).filter(
      (p) => p.proposalId === base || p.proposalId.startsWith(`${base}-`),
    );
    const reaskMs = this.config.DIRIGENT_UPKEEP_REASK_DAYS * DAY_MS;
    const open = mine.some(
      (p) => !DECLINED.includes(p.status) || this.clock.now() - Date.parse(p.at) < reaskMs,
    );
    return open ? undefined : `${base}-${mine.length}`.slice(0, 64);
  }
}
