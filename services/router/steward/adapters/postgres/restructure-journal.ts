import type { EntityManager } from '@mikro-orm/postgresql';
import { RestructureJournal, type JournalledStep } from '../../application/restructure';
import { RestructureStepRow } from './restructure-step.entity';

/** `steward_restructure_step`, written in a fresh context per call (an upsert by key). */
export class PostgresRestructureJournal extends RestructureJournal {
  constructor(private readonly em: EntityManager) {
    super();
  }

  async get(proposalId: string, stepIndex: number): Promise<JournalledStep | undefined> {
    const row = await this.em.fork().findOne(RestructureStepRow, { proposalId, stepIndex });
    if (!row) return undefined;
    return {
      status: row.status as JournalledStep['status'],
      result: row.result ?? undefined,
      error: row.error ?? undefined,
    };
  }

  async put(proposalId: string, stepIndex: number, text: string, step: JournalledStep) {
    await this.em.fork().upsert(RestructureStepRow, {
      proposalId,
      stepIndex,
      status: step.status,
      text: text.slice(0, 300),
      result: step.result ?? null,
      error: step.error?.slice(0, 500) ?? null,
      updatedAt: new Date(),
    });
  }
}
