import type { EntityManager } from '@mikro-orm/postgresql';
import { Durables, Subjects, type ProposalView } from '@dirigent/contracts';
import type { Projection } from '@dirigent/event-store';
import { evolveProposal, type ProposalEvent } from '@dirigent/router-domain';
import { ProposalRow } from './proposal.entity';

/** `steward_proposal` from `dirigent.es.proposal.>`: each commit folded onto the row's view. */
export const proposalProjection: Projection<ProposalEvent> = {
  name: Durables.routerStewardProposals,
  filterSubject: `${Subjects.es.prefix}.proposal.>`,
  async apply(em: EntityManager, commits) {
    const rows = new Map<string, ProposalRow>();
    for (const c of commits) {
      const id = c.subject.slice(c.subject.lastIndexOf('.') + 1);
      const row = rows.get(id) ?? (await em.findOne(ProposalRow, { proposalId: id })) ?? undefined;
      const before = row ? { view: row.view } : {};
      const after = c.envelope.data.events.reduce(evolveProposal, before);
      if (!after.view) continue;
      rows.set(id, upsert(em, id, row, after.view, c.seq));
    }
    await em.flush();
  },
  /** The event store was recreated: the proposals it held are gone with it. */
  async reset(em: EntityManager) {
    await em.nativeDelete(ProposalRow, {});
  },
};

function upsert(
  em: EntityManager,
  id: string,
  existing: ProposalRow | undefined,
  view: ProposalView,
  seq: number,
): ProposalRow {
  const row =
    existing ??
    em.create(ProposalRow, {
      proposalId: id,
      guildId: view.guildId,
      createdAt: new Date(view.createdAt),
    } as ProposalRow);
  row.status = view.status;
  row.messageId = view.messageId ?? null;
  row.view = view;
  row.version = String(seq);
  row.updatedAt = new Date(view.at);
  em.persist(row);
  return row;
}
