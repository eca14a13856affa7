import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { DelegateAgentType, TaskStatus } from '@dirigent/contracts';
import { TaskStore, type TaskRecord } from '../../application/ports';
import { RouterTaskRow } from './task.entity';

/** The advisory-lock class of task owners' leases ('task' in ASCII). */
const LEASE_CLASS = 0x7461736b;

interface PgClient {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

interface KnexClient {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(c: PgClient): Promise<void>;
}

/**
 * `router_tasks`. A process's lease is a session advisory lock on a connection it keeps
 * out of the pool: Postgres releases it when the process (or its connection) dies, so
 * `alive` is exact, with several router processes as with one.
 */
@Injectable()
export class PostgresTasks extends TaskStore {
  private lease?: { client: KnexClient; conn: PgClient };

  constructor(private readonly em: EntityManager) {
    super();
  }

  async create(t: TaskRecord): Promise<void> {
    const em = this.em.fork();
    em.create(RouterTaskRow, {
      taskId: t.taskId,
      guildId: t.guildId,
      channelId: t.channelId,
      agentId: t.agentId,
      agentType: t.agentType,
      inboundMessageId: t.inboundMessageId ?? null,
      decisionId: t.decisionId ?? null,
      status: t.status,
      owner: t.owner,
      startedAt: t.startedAt,
      endedAt: t.endedAt ?? null,
      summary: t.summary ?? null,
    });
    await em.flush();
  }

  async get(taskId: string): Promise<TaskRecord | null> {
    const row = await this.em.fork().findOne(RouterTaskRow, { taskId });
    return row ? toRecord(row) : null;
  }

  async settle(
    taskId: string,
    status: Exclude<TaskStatus, 'running'>,
    summary: string,
    endedAt: Date,
  ): Promise<boolean> {
    const n = await this.em
      .fork()
      .nativeUpdate(RouterTaskRow, { taskId, status: 'running' }, { status, summary, endedAt });
    return n === 1;
  }

  async startedFor(inboundMessageId: string): Promise<boolean> {
    return (await this.em.fork().count(RouterTaskRow, { inboundMessageId })) > 0;
  }

  async running(channelId?: string): Promise<TaskRecord[]> {
    const rows = await this.em
      .fork()
      .find(
        RouterTaskRow,
        { status: 'running', ...(channelId ? { channelId } : {}) },
        { orderBy: { startedAt: 'asc' } },
      );
    return rows.map(toRecord);
  }

  async holdLease(owner: string): Promise<void> {
    if (this.lease) return;
    const client = this.em.getConnection().getKnex().client as unknown as KnexClient;
    const conn = await client.acquireConnection();
    await conn.query('select pg_advisory_lock($1, hashtext($2))', [LEASE_CLASS, owner]);
    this.lease = { client, conn };
  }

  async releaseLease(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    if (!lease) return;
    await lease.conn.query('select pg_advisory_unlock_all()').catch(() => undefined);
    await lease.client.releaseConnection(lease.conn).catch(() => undefined);
  }

  async alive(owner: string): Promise<boolean> {
    // Taken only for the transaction: free means nobody holds the owner's lease.
    return this.em.fork().transactional(async (em) => {
      const [row] = await em.execute<{ free: boolean }[]>(
        'select pg_try_advisory_xact_lock(?, hashtext(?)) as free',
        [LEASE_CLASS, owner],
      );
      return !row?.free;
    });
  }
}

function toRecord(r: RouterTaskRow): TaskRecord {
  return {
    taskId: r.taskId,
    guildId: r.guildId,
    channelId: r.channelId,
    agentId: r.agentId,
    agentType: r.agentType as DelegateAgentType,
    ...(r.inboundMessageId ? { inboundMessageId: r.inboundMessageId } : {}),
    ...(r.decisionId ? { decisionId: r.decisionId } : {}),
    status: r.status as TaskStatus,
    owner: r.owner,
    startedAt: r.startedAt,
    ...(r.endedAt ? { endedAt: r.endedAt } : {}),
    ...(r.summary ? { summary: r.summary } : {}),
  };
}
