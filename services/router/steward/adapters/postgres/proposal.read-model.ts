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

  async pendingCount(guildId: string): Promise<number> {
    return this.em.fork().count(ProposalRow, { guildId, status: 'pending' });
  }

  async requestedSince(guildId: string, userId: string, since: Date): Promise<number> {
    const [row] = await this.em
      .fork()
      .getConnection()
      .execute<{ n: number }[]>(
        `select count(*)::int as n from steward_proposal
          where guild_id = ? and created_at >= ? and view->'requestedBy'->>'userId' = ?`,
        [guildId, since, userId],
      );
    return row?.n ?? 0;
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
