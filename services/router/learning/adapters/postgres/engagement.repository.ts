import { EntityManager } from '@mikro-orm/postgresql';
import { ROOM_SIGNAL_KINDS, type ContextClass, type LearningEngagement } from '@dirigent/contracts';
import { EngagementStore } from '../../application/ports';

/** The room's own judgements of a turn: kept as signals, never a member's engagement. */

interface PostRow {
  context_class: string;
  disposition_id: string;
  posts: number;
  engaged: number;
  ignored: number;
  negative: number;
}
interface KindRow {
  context_class: string;
  disposition_id: string;
  kind: string;
  n: number;
}

/**
 * The engagement view from `persona_messages` (the turns that posted, by the decision that
 * produced them) and the standing rows of `learning_signals` on their messages. A member's
 * signal of a kind not known here still counts by its polarity.
 */
export class PostgresEngagement extends EngagementStore {
  constructor(private readonly em: EntityManager) {
    super();
  }

  async engagement(guildId: string, agentId: string, since: Date): Promise<LearningEngagement[]> {
    const em = this.em.fork();
    const member = `s.user_id not like 'room:%' and s.kind not in (${ROOM_SIGNAL_KINDS.map(() => '?').join(', ')})`;
    const [posts, kinds] = await Promise.all([
      em.execute(
        `select coalesce(m.context_class, 'casual') as context_class, m.disposition_id,
           count(distinct m.decision_id)::int as posts,
           count(distinct m.decision_id) filter (where s.polarity = 'positive' and ${member})::int as engaged,
           count(distinct m.decision_id) filter (where s.kind = 'ignored')::int as ignored,
           count(distinct m.decision_id) filter (where s.polarity = 'negative' and ${member})::int as negative
         from persona_messages m
         left join learning_signals s on s.message_id = m.message_id and not s.withdrawn
         where m.guild_id = ? and m.agent_id = ? and m.at >= ?
         group by 1, 2`,
        [...ROOM_SIGNAL_KINDS, ...ROOM_SIGNAL_KINDS, guildId, agentId, since],
      ) as Promise<PostRow[]>,
      em.execute(
        `select context_class, disposition_id, kind, count(*)::int as n from learning_signals
         where guild_id = ? and agent_id = ? and at >= ? and not withdrawn
         group by 1, 2, 3`,
        [guildId, agentId, since],
      ) as Promise<KindRow[]>,
    ]);
    const out = new Map<string, LearningEngagement>();
    const row = (cls: string, dispositionId: string) => {
      const key = `${cls}/${dispositionId}`;
      let r = out.get(key);
      if (!r) {
        r = {
          contextClass: cls as ContextClass,
          dispositionId,
          posts: 0,
          engaged: 0,
          ignored: 0,
          negative: 0,
          signals: {},
        };
        out.set(key, r);
      }
      return r;
    };
    for (const p of posts) {
      Object.assign(row(p.context_class, p.disposition_id), {
        posts: p.posts,
        engaged: p.engaged,
        ignored: p.ignored,
        negative: p.negative,
      });
    }
    for (const k of kinds) row(k.context_class, k.disposition_id).signals[k.kind] = k.n;
    return [...out.values()].sort(
      (a, b) =>
        a.contextClass.localeCompare(b.contextClass) ||
        a.dispositionId.localeCompare(b.dispositionId),
    );
  }
}
