import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Aggregates, ProposeRequest, subject, type ProposalView } from '@dirigent/contracts';
import { CommandHandler, EventStore, type AppendMeta } from '@dirigent/event-store';
import {
  decideProposal,
  evolveProposal,
  foldProposal,
  initialProposalState,
  type ProposalCommand,
  type ProposalEvent,
  type ProposalState,
} from '@dirigent/router-domain';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import type { ProposalRequest as SkillProposalRequest } from '@dirigent/skills';
import type { RouterConfig } from '../../config';

export const proposalSubject = (proposalId: string) =>
  subject.aggregate(Aggregates.proposal, proposalId);

/** The proposal id of `dirigent.es.proposal.<id>`. */
export const proposalIdOf = (aggregateSubject: string) =>
  aggregateSubject.slice(aggregateSubject.lastIndexOf('.') + 1);

/**
 * The proposal aggregates (`dirigent.es.proposal.<id>`); the skill system reaches them through
 * `RequestProposal` (the limits), upkeep directly:
 *
 * @example
 * const { proposalId } = await proposals.propose({ guildId, channelId, skillId: 'create_channel',
 *   tool: 'create_channel', args: { name: 'lore' }, reason: 'a topic of its own',
 *   requestedBy: { agentId: 'dit' } });
 */
@Injectable()
export class ProposalService {
  private readonly handler: CommandHandler<ProposalCommand, ProposalEvent, ProposalState>;
  /** The newest event store sequence this process appended a proposal commit at. */
  lastWritten = 0;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
  ) {
    this.handler = new CommandHandler(store, {
      initialState: initialProposalState,
      decide: decideProposal,
      evolve: evolveProposal,
    });
  }

  /** A `confirm`-class call becomes a pending proposal; the same `proposalId` proposes once. */
  async propose(
    input: ProposeRequest | SkillProposalRequest | Record<string, unknown>,
  ): Promise<{ proposalId: string }> {
    const r = input instanceof ProposeRequest ? input : ProposeRequest.create(input);
    const proposalId = r.proposalId ?? randomUUID();
    const now = this.clock.now();
    await this.execute(
      proposalId,
      {
        type: 'RequestProposal',
        data: {
          proposalId,
          guildId: r.guildId,
          channelId: r.channelId,
          skillId: r.skillId,
          tool: r.tool,
          args: r.args,
          reason: r.reason,
          requestedBy: { ...r.requestedBy },
          createdAt: new Date(now).toISOString(),
          expiresAt: new Date(now + this.config.DIRIGENT_PROPOSAL_TTL_MS).toISOString(),
        },
      },
      { id: `proposal-requested-${proposalId}` },
    );
    return { proposalId };
  }

  /** Runs a command on the proposal, against its latest stored version. */
  async execute(proposalId: string, command: ProposalCommand, meta: AppendMeta = {}) {
    const s = proposalSubject(proposalId);
    this.handler.invalidate(s);
    const done = await this.handler.handle(s, command, meta);
    this.lastWritten = Math.max(this.lastWritten, done.version);
    return done;
  }

  /** The proposal as stored now (undefined when there is none). */
  async current(proposalId: string): Promise<ProposalView | undefined> {
    const s = proposalSubject(proposalId);
    this.handler.invalidate(s);
    return (await this.handler.state(s)).state.view;
  }

  /** The proposal as it was right after the commit at `seq` (what an event reports). */
  async at(proposalId: string, seq: number): Promise<ProposalView | undefined> {
    const commits = await this.store.loadCommits<ProposalEvent>(proposalSubject(proposalId));
    return foldProposal(commits.filter((c) => c.seq <= seq).map((c) => c.envelope.data.events))
      .view;
  }
}
