import { Injectable, Logger } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type MessageCreated,
  type ProposalView,
  type ReactionChanged,
  type StewardDecideRequest,
} from '@dirigent/contracts';
import {
  APPROVE_EMOJI,
  decisionRefusal,
  proposalIdIn,
  REJECT_EMOJI,
} from '@dirigent/router-domain';
import { Clock } from '@dirigent/service-kit';
import { ModChannels } from './mod-channels';
import { ProposalService } from './proposals';
import { HeldDecisions, ProposalReadModel, StewardDiscord } from './ports';

/** How long a reaction in a mod channel waits for its proposal's post to reach the read model. */
const LOOKUP_TRIES = 20;
const LOOKUP_STEP_MS = 250;

/**
 * Decisions on proposals: a ✅ or ❌ on a proposal's post in the mod channel by a member who
 * has ManageGuild (and, for a role change, ManageRoles and a highest role above the role;
 * asked of the ingest), or `Subjects.admin.stewardDecide` under the same rule. Any other
 * reaction or reactor is ignored. A reaction counts at the time it was given (its event's
 * `at`); one on a mod channel message not (yet) known as a post is held durably and applied
 * when the post is recorded (a restart between the post and its record loses no ✅). Also
 * recognises the steward's own post of a proposal (its `message.created`) and records it.
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
    private readonly held: HeldDecisions,
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
    const held = await this.held.list(m.messageId);
    for (const d of held) await this.apply(proposalId, d.reaction, d.at);
    if (held.length) await this.held.release(m.messageId, held);
  }

  /** A ✅ or ❌; `at` is when it was given (its event's time), what the TTL is judged by. */
  async onReaction(r: ReactionChanged, at: string = this.nowIso()): Promise<void> {
    if (r.emoji !== APPROVE_EMOJI && r.emoji !== REJECT_EMOJI) return;
    if (r.userId === (await this.discord.selfId())) return;
    let proposalId = await this.proposalOf(r);
    if (!proposalId) {
      if (!(await this.modChannels.isModChannel(r.guildId, r.channelId))) return;
      // Perhaps a post not recorded yet: held until it is (or forgotten with the bucket's TTL).
      await this.held.hold({ reaction: r, at });
      proposalId =
        this.posted.get(r.messageId) ?? (await this.readModel.byMessageId(r.messageId))?.proposalId;
      if (!proposalId) return;
    }
    await this.apply(proposalId, r, at);
  }

  private async apply(proposalId: string, r: ReactionChanged, at: string): Promise<void> {
    const current = await this.proposals.current(proposalId);
    if (!current || current.guildId !== r.guildId || current.messageId !== r.messageId) return;
    if (current.status !== 'pending' && current.status !== 'expired') return;
    const refused = await this.refusal(current, r.userId);
    if (refused) {
      this.log.log({ proposalId, userId: r.userId, refused }, 'reaction does not decide');
      if (current.skillId === 'manage_roles' && current.modChannelId)
        await this.discord.post(
          r.guildId,
          current.modChannelId,
          `<@${r.userId}>, your ${r.emoji} on \`${proposalId}\` does not count: ${refused}.`,
          `proposal-refused-${proposalId}-${r.userId}-${r.emoji === APPROVE_EMOJI ? 'a' : 'r'}`,
        );
      return;
    }
    await this.proposals.execute(proposalId, {
      type: 'DecideProposal',
      approve: r.emoji === APPROVE_EMOJI,
      by: r.userId,
      at,
    });
  }

  /** `Subjects.admin.stewardDecide`: the proposal after the decision (unchanged if settled). */
  async decide(r: StewardDecideRequest): Promise<ProposalView> {
    const current = await this.proposals.current(r.proposalId);
    if (!current) throw new DomainError(ErrorCodes.NOT_FOUND, `no proposal ${r.proposalId}`);
    const refused = await this.refusal(current, r.actorUserId);
    if (refused) throw new DomainError(ErrorCodes.FORBIDDEN, `${r.actorUserId}: ${refused}`);
    const { state } = await this.proposals.execute(r.proposalId, {
      type: 'DecideProposal',
      approve: r.approve,
      by: r.actorUserId,
      at: this.nowIso(),
    });
    return state.view!;
  }

  /** Why this member's decision does not count (undefined when it does). */
  private async refusal(p: ProposalView, userId: string): Promise<string | undefined> {
    if (userId === (await this.discord.selfId())) return 'the bot does not decide';
    const member = await this.discord.member(p.guildId, userId);
    const roleName = p.skillId === 'manage_roles' ? p.args.roleName : undefined;
    const role =
      typeof roleName === 'string' && member
        ? (await this.discord.roles(p.guildId)).find((x) => x.name === roleName)
        : undefined;
    return decisionRefusal(p, member, role);
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
