import { EntityManager } from '@mikro-orm/postgresql';
import type { ContextClass } from '@dirigent/contracts';
import { KeptReads } from '../../../adapters/kept-reads';
import { LearningStore, type MemberSignal, type SignalKey } from '../../application/ports';

type Adjustment = Awaited<ReturnType<LearningStore['adjustments']>>[number];

/** The advisory lock class of learning writes (`pg_advisory_xact_lock(class, hashtext(g/agent))`). */
const LOCK_CLASS = 0x6c726e67;

interface AdjustmentRow {
  context_class: string;
  disposition_id: string;
  adjustment: number;
  at: Date;
}
interface SignalRow {
  kind: string;
  polarity: 'positive' | 'negative';
  delta: number;
  reactions: string[] | string;
  withdrawn: boolean;
}

/** `learning_adjustments` and `learning_signals` (Migration20261207001000_learning_per_community). */
export class PostgresLearning extends LearningStore {
  /** A guild's adjustments of an agent in every mood (every turn reads them), kept (see `KeptReads`). */
  private readonly all = new KeptReads<Adjustment[]>();

  constructor(private readonly em: EntityManager) {
    super();
  }

  adjustments(guildId: string, agentId: string, contextClass?: ContextClass) {
    if (contextClass) return this.read(guildId, agentId, contextClass);
    return this.all.get(`${guildId}/${agentId}`, () => this.read(guildId, agentId));
  }

  /**
   * One signal of a guild's agent at a time in this process (they wait for one lock in
   * Postgres anyway); the kept adjustments take the one it wrote (none: they stay).
   */
  async signal(key: SignalKey, at: Date, decide: Parameters<LearningStore['signal']>[2]) {
    const r = await this.all.after(
      `${key.guildId}/${key.agentId}`,
      () => this.step(key, at, decide),
      (w) => (w.wrote ? (rows) => withAdjustment(rows, w.wrote!) : (rows) => rows),
    );
    return r.d;
  }

  private async read(
    guildId: string,
    agentId: string,
    contextClass?: ContextClass,
  ): Promise<Adjustment[]> {
    const rows: AdjustmentRow[] = await this.em.fork().execute(
      `select context_class, disposition_id, adjustment, at from learning_adjustments
         where guild_id = ? and agent_id = ?${contextClass ? ' and context_class = ?' : ''}
         order by context_class, disposition_id`,
      contextClass ? [guildId, agentId, contextClass] : [guildId, agentId],
    );
    return rows.map((r) => ({
      contextClass: r.context_class as ContextClass,
      dispositionId: r.disposition_id,
      adjustment: Number(r.adjustment),
      at: new Date(r.at),
    }));
  }

  private step(key: SignalKey, at: Date, decide: Parameters<LearningStore['signal']>[2]) {
    const day = at.toISOString().slice(0, 10);
    return this.em.fork().transactional(async (em) => {
      await em.execute('select pg_advisory_xact_lock(?, hashtext(?))', [
        LOCK_CLASS,
        `${key.guildId}/${key.agentId}`,
      ]);
      const [cur] = (await em.execute(
        `select kind, polarity, delta, reactions, withdrawn from learning_signals
         where message_id = ? and user_id = ?`,
        [key.messageId, key.userId],
      )) as SignalRow[];
      const [{ n }] = (await em.execute(
        `select count(*)::int as n from learning_signals where guild_id = ? and user_id = ? and day = ?`,
        [key.guildId, key.userId, day],
      )) as { n: number }[];
      const [adj] = (await em.execute(
        `select adjustment, at from learning_adjustments
         where guild_id = ? and agent_id = ? and context_class = ? and disposition_id = ?`,
        [key.guildId, key.agentId, key.contextClass, key.dispositionId],
      )) as { adjustment: number; at: Date }[];
      const current: MemberSignal | null = cur
        ? {
            kind: cur.kind as MemberSignal['kind'],
            polarity: cur.polarity,
            delta: Number(cur.delta),
            reactions:
              typeof cur.reactions === 'string' ? JSON.parse(cur.reactions) : cur.reactions,
            withdrawn: cur.withdrawn,
          }
        : null;
      const d = decide({
        current,
        today: n,
        adjustment: adj ? Number(adj.adjustment) : 0,
        adjustedAt: adj ? new Date(adj.at) : null,
      });
      if (!d) return { d, wrote: undefined };
      await em.execute(
        `insert into learning_signals (message_id, user_id, guild_id, agent_id, context_class,
           disposition_id, kind, polarity, delta, reactions, withdrawn, day, at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)
         on conflict (message_id, user_id) do update set kind = excluded.kind,
           polarity = excluded.polarity, delta = excluded.delta, reactions = excluded.reactions,
           withdrawn = excluded.withdrawn, at = excluded.at`,
        [
          key.messageId,
          key.userId,
          key.guildId,
          key.agentId,
          key.contextClass,
          key.dispositionId,
          d.row.kind,
          d.row.polarity,
          d.row.delta,
          JSON.stringify(d.row.reactions),
          d.row.withdrawn,
          day,
          at,
        ],
      );
      if (!(d.delta !== 0 || adj)) return { d, wrote: undefined };
      await em.execute(
        `insert into learning_adjustments (guild_id, agent_id, context_class, disposition_id, adjustment, at)
           values (?, ?, ?, ?, ?, ?)
           on conflict (guild_id, agent_id, context_class, disposition_id)
           do update set adjustment = excluded.adjustment, at = excluded.at`,
        [key.guildId, key.agentId, key.contextClass, key.dispositionId, d.adjustment, at],
      );
      const wrote: Adjustment = {
        contextClass: key.contextClass,
        dispositionId: key.dispositionId,
        adjustment: d.adjustment,
        at,
      };
      return { d, wrote };
    });
  }

  async signalCount(guildId: string, agentId: string): Promise<number> {
    const [{ n }] = (await this.em
      .fork()
      .execute(
        'select count(*)::int as n from learning_signals where guild_id = ? and agent_id = ?',
        [guildId, agentId],
      )) as { n: number }[];
    return n;
  }

  async reset(guildId: string, agentId: string): Promise<number> {
    const r = (await this.all.dropAfter(
      `${guildId}/${agentId}`,
      this.em
        .fork()
        .execute(
          'delete from learning_adjustments where guild_id = ? and agent_id = ?',
          [guildId, agentId],
          'run',
        ),
    )) as { affectedRows?: number };
    return r.affectedRows ?? 0;
  }
}

/** `rows` (in the order the table is read) with `a` in place of its class's disposition's row. */
function withAdjustment(rows: readonly Adjustment[], a: Adjustment): Adjustment[] {
  const rest = rows.filter(
    (r) => r.contextClass !== a.contextClass || r.dispositionId !== a.dispositionId,
  );
  return [...rest, a].sort(
    (x, y) => cmp(x.contextClass, y.contextClass) || cmp(x.dispositionId, y.dispositionId),
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
