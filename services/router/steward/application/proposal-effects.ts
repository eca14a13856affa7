import { Injectable, Logger } from '@nestjs/common';
import {
  ProposalExpiryDue,
  StewardEventTypes,
  subject,
  type ProposalView,
} from '@dirigent/contracts';
import { declareJob, Reactor, timer, type DeclaredJob } from '@dirigent/reactor';
import { APPROVE_EMOJI, REJECT_EMOJI, type ProposalEvent } from '@dirigent/router-domain';
import { Clock } from '@dirigent/service-kit';
import { RouterOutbox } from '../../application/clients';
import { ROUTER_SERVICE } from '../../application/schedule-followup';
import { ProposalPosts } from './proposal-posts';
import { ProposalActions } from './proposal-actions';
import { ProposalService } from './proposals';
import { StewardEvents } from './ports';

/** A pending proposal's expiry (`dirigent.timer.fired.router.proposal-expiry`). */
export const PROPOSAL_EXPIRY_DUE = timer({
  subject: subject.timerFired(ROUTER_SERVICE, 'proposal-expiry'),
  type: StewardEventTypes.proposalExpiryDue,
});

const expiryKey = (proposalId: string) => `proposal-expiry:${proposalId}`;

const OUTCOME: Partial<Record<ProposalView['status'], string>> = {
  rejected: 'rejected',
  expired: 'expired without a decision',
  executed: 'approved and done',
  failed: 'approved, but it failed',
};

/**
 * The effects of a committed proposal event, run by the durable consumer of
 * `dirigent.es.proposal.>` (again after a crash: each is idempotent). Requested → posted in the
 * guild's mod channel and its expiry armed; posted → ✅ and ❌ added; approved → the action run
 * once (the outcome appended at the expected version); settled → the timer disarmed and the
 * outcome said in the mod channel. Every commit → `dirigent.steward.evt.<g>.proposal`.
 */
@Injectable()
export class ProposalEffects {
  private readonly log = new Logger('router:steward');

  constructor(
    private readonly proposals: ProposalService,
    private readonly actions: ProposalActions,
    private readonly events: StewardEvents,
    private readonly reactor: Reactor,
    private readonly clock: Clock,
    private readonly outbox: RouterOutbox,
    private readonly posts: ProposalPosts,
  ) {}

  /** The reactor job `proposal-expiry` (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    return [
      declareJob<ProposalExpiryDue>({
        name: 'proposal-expiry',
        trigger: PROPOSAL_EXPIRY_DUE,
        parse: ProposalExpiryDue.create,
        lane: (d) => `proposal:${d.proposalId}`,
        run: async (d) => {
          await this.proposals.execute(d.proposalId, { type: 'ExpireProposal', at: this.nowIso() });
        },
      }),
    ];
  }

  private nowIso() {
    return new Date(this.clock.now()).toISOString();
  }

  async onCommit(proposalId: string, seq: number, commitId: string, events: ProposalEvent[]) {
    const view = await this.proposals.at(proposalId, seq);
    if (!view) return;
    for (const e of events) {
      switch (e.type) {
        case 'ProposalRequested':
          await this.post(view);
          break;
        case 'ProposalPosted':
          await this.react(view);
          break;
        case 'ProposalApproved':
          await this.reactor.disarm(expiryKey(proposalId));
          await this.run(proposalId);
          break;
        case 'ProposalRejected':
        case 'ProposalExpired':
        case 'ProposalExecuted':
        case 'ProposalFailed':
          await this.reactor.disarm(expiryKey(proposalId));
          await this.settled(view, commitId);
          break;
        default: {
          const never: never = e;
          return never;
        }
      }
    }
    await this.events.proposal(view, commitId);
  }

  private async post(view: ProposalView) {
    // A redelivery after the post was seen (later than the command's de-duplication window).
    if ((await this.proposals.current(view.proposalId))?.messageId) return;
    await this.posts.request(view, `proposal-post-${view.proposalId}`);
    await this.reactor.arm(
      PROPOSAL_EXPIRY_DUE,
      expiryKey(view.proposalId),
      new Date(view.expiresAt),
      { proposalId: view.proposalId, expiresAt: view.expiresAt },
    );
  }

  private async react(view: ProposalView) {
    if (!view.messageId || !view.modChannelId) return;
    for (const [emoji, tag] of [
      [APPROVE_EMOJI, 'approve'],
      [REJECT_EMOJI, 'reject'],
    ]) {
      await this.outbox.addReaction(
        view.guildId,
        view.modChannelId,
        view.messageId,
        emoji,
        `proposal-react-${view.proposalId}-${tag}`,
      );
    }
  }

  /** Runs the approved action unless an outcome is already recorded (a redelivery). */
  private async run(proposalId: string) {
    const current = await this.proposals.current(proposalId);
    if (current?.status !== 'approved') return;
    let outcome: { ok: boolean; result?: unknown; error?: string };
    try {
      outcome = { ok: true, result: await this.actions.execute(current) };
    } catch (e) {
      outcome = { ok: false, error: (e as Error).message.slice(0, 500) };
      this.log.warn({ proposalId, tool: current.tool, err: outcome.error }, 'proposal failed');
    }
    await this.proposals.execute(
      proposalId,
      { type: 'RecordOutcome', ...outcome, at: this.nowIso() },
      { id: `proposal-outcome-${proposalId}` },
    );
  }

  private async settled(view: ProposalView, commitId: string) {
    const said = OUTCOME[view.status];
    if (!said || !view.modChannelId) return;
    const by = view.decidedBy ? ` (decided by <@${view.decidedBy}>)` : '';
    const detail = view.status === 'failed' && view.error ? `: ${view.error.slice(0, 300)}` : '';
    await this.posts.say(
      { ...view, modChannelId: view.modChannelId },
      `Proposal \`${view.proposalId}\` ${said}${by}${detail}.`,
      `proposal-settled-${commitId}`,
    );
  }
}
