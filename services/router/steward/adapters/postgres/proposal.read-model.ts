import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProposalStatus, ProposalView } from '@dirigent/contracts';
import { ProposalReadModel } from '../../application/ports';
import { ProposalRow } from './proposal.entity';

const LIMIT = 500;

/** `steward_proposal`, read in a fresh context per call. */
export class PostgresProposals extends ProposalReadModel {
  constructor(private readonly em: EntityManager) {
    super();
  }

  async byId(proposalId: string): Promise<ProposalView | undefined> {
    return (await this.em.fork().findOne(ProposalRow, { proposalId }))?.view;
  }

  async byMessageId(messageId: string): Promise<ProposalView | undefined> {
    return (await this.em.fork().findOne(ProposalRow, { messageId }))?.view;
  }

  async list(guildId: string, status?: ProposalStatus): Promise<ProposalView[]> {
    const rows = await this.em
      .fork()
      .find(ProposalRow, status ? { guildId, status } : { guildId }, {
        orderBy: { createdAt: 'desc' },
        limit: LIMIT,
      });
    return rows.map((r) => r.view);
  }
}
