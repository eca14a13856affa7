import { EntityManager } from '@mikro-orm/postgresql';
import { BurstStore, type BurstRecord } from '../../application/stores';
import { BurstRow } from './burst.entity';

/** `router_bursts`. */
export class PostgresBursts extends BurstStore {
  constructor(private readonly em: EntityManager) {
    super();
  }

  async begin(b: Omit<BurstRecord, 'status' | 'sent' | 'sentIds'>, at: Date): Promise<void> {
    await this.em.getConnection().execute(
      `insert into "router_bursts" ("decision_id", "guild_id", "channel_id", "agent_id", "disposition_id", "status", "sent", "sent_ids", "updated_at")
         values (?, ?, ?, ?, ?, 'running', 0, '[]', ?) on conflict ("decision_id") do nothing`,
      [b.decisionId, b.guildId, b.channelId, b.agentId, b.dispositionId, at],
    );
  }

  async progress(decisionId: string, sent: number, sentIds: string[], at: Date): Promise<void> {
    await this.em
      .fork()
      .nativeUpdate(BurstRow, { decisionId, status: 'running' }, { sent, sentIds, updatedAt: at });
  }

  async end(decisionId: string, status: 'done' | 'interrupted' | 'stopped', at: Date) {
    await this.em
      .fork()
      .nativeUpdate(BurstRow, { decisionId, status: 'running' }, { status, updatedAt: at });
  }

  async running(limit: number): Promise<BurstRecord[]> {
    const rows = await this.em
      .fork()
      .find(BurstRow, { status: 'running' }, { orderBy: { updatedAt: 'asc' }, limit });
    return rows.map((r) => ({
      decisionId: r.decisionId,
      guildId: r.guildId,
      channelId: r.channelId,
      agentId: r.agentId,
      dispositionId: r.dispositionId,
      status: r.status,
      sent: r.sent,
      sentIds: r.sentIds,
    }));
  }
}
