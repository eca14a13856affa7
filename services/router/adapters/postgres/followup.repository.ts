import { EntityManager } from '@mikro-orm/postgresql';
import { FollowupStore, type FollowupRecord } from '../../application/stores';
import { FollowupRow } from './followup.entity';

function toRecord(r: FollowupRow): FollowupRecord {
  return {
    followupId: r.followupId,
    parentDecisionId: r.parentDecisionId,
    guildId: r.guildId,
    channelId: r.channelId,
    agentId: r.agentId,
    bias: r.bias,
    dueAt: r.dueAt,
    status: r.status,
    ...(r.reason ? { reason: r.reason } : {}),
    botMessageIds: r.botMessageIds,
    createdAt: r.createdAt,
  };
}

/** `self_followup_schedules`. */
export class PostgresFollowups extends FollowupStore {
  constructor(private readonly em: EntityManager) {
    super();
  }

  async create(f: FollowupRecord): Promise<void> {
    const em = this.em.fork();
    em.create(FollowupRow, { ...f, reason: f.reason ?? null, firedDecisionId: null });
    await em.flush();
  }

  async get(followupId: string): Promise<FollowupRecord | null> {
    const r = await this.em.fork().findOne(FollowupRow, { followupId });
    return r ? toRecord(r) : null;
  }

  async scheduled(): Promise<FollowupRecord[]> {
    const rows = await this.em.fork().find(FollowupRow, { status: 'scheduled' });
    return rows.map(toRecord);
  }

  async setBotMessages(followupId: string, botMessageIds: string[]): Promise<void> {
    await this.em.fork().nativeUpdate(FollowupRow, { followupId }, { botMessageIds });
  }

  async settle(
    followupId: string,
    status: 'fired' | 'aborted',
    reason?: string,
    firedDecisionId?: string,
  ): Promise<boolean> {
    const n = await this.em
      .fork()
      .nativeUpdate(
        FollowupRow,
        { followupId, status: 'scheduled' },
        { status, reason: reason ?? null, firedDecisionId: firedDecisionId ?? null },
      );
    return n > 0;
  }
}
