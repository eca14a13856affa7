import { Injectable, Logger } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type MessageCreated,
  type ProposalView,
  type ReactionChanged,
  type StewardDecideRequest,
} from '@dirigent/contracts';
import { APPROVE_EMOJI, proposalIdIn, REJECT_EMOJI } from '@dirigent/router-domain';
import { Clock } from '@dirigent/service-kit';
import { ModChannels } from './mod-channels';
import { ProposalService } from './proposals';
import { ProposalReadModel, StewardDiscord } from './ports';

const DECIDERS = ['ManageGuild', 'Administrator'];
/** How long a reaction in a mod channel waits for its proposal's post to reach the read model. */
const LOOKUP_TRIES = 20;
const LOOKUP_STEP_MS = 250;

/**
 * Decisions on proposals: a ✅ or ❌ on a proposal's post in the mod channel by a member who
 * has ManageGuild (asked of the ingest), or `Subjects.admin.stewardDecide` under the same
 * rule. Any other reaction or reactor is ignored. Also recognises the steward's own post of
 * a proposal (its `message.created`) and records where it is.
 */
@Injectable()
export class DecideProposal {
  private readonly log = new Logger('router:steward');
  /** Posts this process recorded: message id → proposal id (the read model has them all). */
  private readonly posted = new Map<string, string>();

  constructor(
    private readonly proposals: ProposalService,
    private readonly readModel: ProposalReadModel,
    private readonly modChannels: ModChannels,
    private readonly discord: StewardDiscord,
    private readonly clock: Clock,
  ) {}

  private nowIso() {
    return new Date(this.clock.now()).toISOString();
  }

  /** The bot's own post of a proposal: where its reactions will come. */
  async onMessage(m: MessageCreated): Promise<void> {
    const proposalId = m.authorIsBot && !m.webhookId ? proposalIdIn(m.content) : undefined;
    if (!proposalId || m.authorId !== (await this.discord.selfId())) return;
    const current = await this.proposals.current(proposalId);
    if (!current || current.guildId !== m.guildId) return;
    this.posted.set(m.messageId, proposalId);
    if (this.posted.size > 10_000) this.posted.delete(this.posted.keys().next().value!);
    await this.proposals.execute(
      proposalId,
      { type: 'RecordPost', modChannelId: m.channelId, messageId: m.messageId, at: this.nowIso() },
      { id: `proposal-posted-${proposalId}` },
    );
  }

  async onReaction(r: ReactionChanged): Promise<void> {
    if (r.emoji !== APPROVE_EMOJI && r.emoji !== REJECT_EMOJI) return;
    if (r.userId === (await this.discord.selfId())) return;
    const proposalId = await this.proposalOf(r);
    if (!proposalId) return;
    const current = await this.proposals.current(proposalId);
    if (!current || current.guildId !== r.guildId || current.messageId !== r.messageId) return;
    if (current.status !== 'pending') return;
    if (!(await this.mayDecide(r.guildId, r.userId))) {
      this.log.log(
        { proposalId, userId: r.userId },
        'reaction by a member without ManageGuild ignored',
      );
      return;
    }
    await this.proposals.execute(proposalId, {
      type: 'DecideProposal',
      approve: r.emoji === APPROVE_EMOJI,
      by: r.userId,
      at: this.nowIso(),
    });
  }

  /** `Subjects.admin.stewardDecide`: the proposal after the decision (unchanged if settled). */
  async decide(r: StewardDecideRequest): Promise<ProposalView> {
    const current = await this.proposals.current(r.proposalId);
    if (!current) throw new DomainError(ErrorCodes.NOT_FOUND, `no proposal ${r.proposalId}`);
    if (!(await this.mayDecide(current.guildId, r.actorUserId))) {
      throw new DomainError(
        ErrorCodes.FORBIDDEN,
        `${r.actorUserId} does not have ManageGuild in ${current.guildId}`,
      );
    }
    const { state } = await this.proposals.execute(r.proposalId, {
      type: 'DecideProposal',
      approve: r.approve,
      by: r.actorUserId,
      at: this.nowIso(),
    });
    return state.view!;
  }

  private async mayDecide(guildId: string, userId: string): Promise<boolean> {
    if (userId === (await this.discord.selfId())) return false;
    const permissions = await this.discord.memberPermissions(guildId, userId);
    return permissions.some((p) => DECIDERS.includes(p));
  }

  /** The proposal posted as the reacted message; in a mod channel, waits for the read model. */
  private async proposalOf(r: ReactionChanged): Promise<string | undefined> {
    const mine = this.posted.get(r.messageId);
    if (mine) return mine;
    const inMod = await this.modChannels.isModChannel(r.guildId, r.channelId);
    for (let i = 0; i < (inMod ? LOOKUP_TRIES : 1); i++) {
      if (i > 0) await new Promise((res) => setTimeout(res, LOOKUP_STEP_MS));
      const found = await this.readModel.byMessageId(r.messageId);
      if (found) return found.proposalId;
    }
    return undefined;
  }
}
