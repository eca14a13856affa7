import { Durables, subject } from '@dirigent/contracts';
import type { Projection } from '@dirigent/event-store';
import type { IdentityEvent } from '@dirigent/turn-domain';
import { sql } from './channel-projection';

export { channelProjection } from './channel-projection';

/** `tc_identity`: the identity registry as a table (the control page's registry list). */
export const identityProjection: Projection<IdentityEvent> = {
  name: Durables.coordinatorIdentityProjection,
  filterSubject: subject.aggregate('identity', '>'),
  async reset(em) {
    await sql(em, 'delete from tc_identity', []);
  },
  async apply(em, commits) {
    for (const event of commits.flatMap((c) => c.envelope.data.events)) {
      switch (event.type) {
        case 'IdentityUpserted': {
          const e = event.data;
          await sql(em, 'delete from tc_identity where agent_id = ? and discord_user_id <> ?', [
            e.agentId,
            e.discordUserId,
          ]);
          await sql(
            em,
            `insert into tc_identity (discord_user_id, agent_id, agent_name, source, updated_at)
             values (?, ?, ?, ?, now())
             on conflict (discord_user_id) do update set agent_id = excluded.agent_id,
               agent_name = excluded.agent_name, source = excluded.source, updated_at = now()`,
            [e.discordUserId, e.agentId, e.agentName, e.source],
          );
          break;
        }
        case 'IdentityRemoved':
          await sql(em, 'delete from tc_identity where discord_user_id = ?', [
            event.data.discordUserId,
          ]);
          break;
        default: {
          const unreachable: never = event;
          throw new Error(`unknown identity event ${JSON.stringify(unreachable)}`);
        }
      }
    }
  },
};
