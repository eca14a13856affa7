import { EntityRepository, sql } from '@mikro-orm/postgresql';
import type { UsageRecord } from '@dirigent/llm';
import type { UsageLine } from '../../application/ports';
import type { UsageEntry } from './usage-entry.entity';

export class UsageEntryRepository extends EntityRepository<UsageEntry> {
  async append(records: UsageRecord[]): Promise<void> {
    if (!records.length) return;
    await this.getEntityManager().insertMany(
      this.getEntityName(),
      records.map((u) => ({ ...u, at: new Date(u.at), error: u.error ?? null })),
    );
  }

  /** The ledger of one UTC day, by purpose, model and outcome, costliest first. */
  async totals(guildId: string, day: string): Promise<UsageLine[]> {
    const from = new Date(`${day}T00:00:00Z`);
    const to = new Date(from.getTime() + 86_400_000);
    const rows = await this.createQueryBuilder()
      .select([
        'purpose',
        'model',
        'outcome',
        sql`count(*)::int`.as('calls'),
        sql`sum(input_tokens)::bigint`.as('input_tokens'),
        sql`sum(output_tokens)::bigint`.as('output_tokens'),
        sql`sum(cost_usd)`.as('cost_usd'),
        sql`round(avg(latency_ms))::int`.as('avg_latency_ms'),
      ])
      .where({ guildId, at: { $gte: from, $lt: to } })
      .groupBy(['purpose', 'model', 'outcome'])
      .orderBy({ [sql`sum(cost_usd)`]: 'desc', [sql`count(*)`]: 'desc' })
      .execute<Record<string, unknown>[]>('all', false);
    return rows.map((r) => ({
      purpose: r.purpose as string | null,
      model: r.model as string | null,
      outcome: String(r.outcome),
      calls: Number(r.calls),
      inputTokens: Number(r.input_tokens),
      outputTokens: Number(r.output_tokens),
      costUsd: Number(r.cost_usd),
      avgLatencyMs: Number(r.avg_latency_ms),
    }));
  }
}
