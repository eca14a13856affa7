import type { EntityManager } from '@mikro-orm/postgresql';
import { Durables, subject } from '@dirigent/contracts';
import type { Projection, ProjectionMeta } from '@dirigent/event-store';
import {
  describeChannel,
  evolveChannel,
  initialChannelState,
  type ChannelEvent,
  type ChannelState,
  type IdentityEvent,
} from '@dirigent/turn-domain';
import { channelSubject } from '../channels';

async function sql(em: EntityManager, query: string, params: unknown[]) {
  return em.getConnection().execute(query, params, 'all', em.getTransactionContext());
}

const channelIdOf = (meta: ProjectionMeta) => meta.subject.slice(channelSubject('').length);

/** Timeline entries worth keeping: everything but plain message sightings. */
function timelineWorthy(event: ChannelEvent): boolean {
  return event.type !== 'MessageSeen' || event.data.reaction !== 'none';
}

function timelineFields(event: ChannelEvent): {
  agentId: string | null;
  turnId: string | null;
  cycle: number | null;
} {
  const d = event.data as Record<string, unknown>;
  const str = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : null);
  return {
    agentId: str('agentId') ?? str('callerAgentId') ?? str('initiatorAgentId'),
    turnId: str('turnId'),
    cycle: typeof d.cycle === 'number' ? d.cycle : null,
  };
}

interface Draft {
  seq: number;
  state: ChannelState;
  timeline: unknown[][];
}

/** The commit being applied (the projection consumer applies one commit at a time). */
let draft: Draft | undefined;

async function writeChannel(em: EntityManager, channelId: string, d: Draft, at: string) {
  const state = d.state;
  const v = describeChannel(state);
  const turn = state.currentTurn;
  await sql(
    em,
    `insert into tc_channel (channel_id, guild_id, mode, tm_state, speakers, current_speaker,
       current_turn_id, turn_phase, cycle, dormant, dormant_reason, multi_message, shuffle,
       wake_mode, discussion, last_message_id, state, version, updated_at)
     values (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?, now())
     on conflict (channel_id) do update set guild_id = excluded.guild_id, mode = excluded.mode,
       tm_state = excluded.tm_state, speakers = excluded.speakers,
       current_speaker = excluded.current_speaker, current_turn_id = excluded.current_turn_id,
       turn_phase = excluded.turn_phase, cycle = excluded.cycle, dormant = excluded.dormant,
       dormant_reason = excluded.dormant_reason, multi_message = excluded.multi_message,
       shuffle = excluded.shuffle, wake_mode = excluded.wake_mode,
       discussion = excluded.discussion, last_message_id = excluded.last_message_id,
       state = excluded.state, version = excluded.version, updated_at = now()`,
    [
      channelId,
      state.guildId,
      state.mode,
      state.tmState,
      JSON.stringify(state.speakers),
      v.currentSpeaker,
      turn?.turnId ?? null,
      turn?.phase ?? null,
      state.cycle,
      state.dormant,
      state.dormantReason,
      state.multiMessage,
      state.shuffleOverride,
      state.wakeMode,
      v.discussion ? JSON.stringify(v.discussion) : null,
      state.lastMessageId,
      JSON.stringify(state),
      String(d.seq),
    ],
  );
  if (d.timeline.length === 0) return;
  await sql(
    em,
    `insert into tc_turn_event (channel_id, seq, idx, type, agent_id, turn_id, cycle, data, at)
     values ${d.timeline.map(() => '(?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)').join(', ')}
     on conflict (seq, idx) do nothing`,
    d.timeline.flatMap((row) => [channelId, String(d.seq), ...row, at]),
  );
}

/**
 * `tc_channel` (the folded state of every channel, with its columns for queries) and
 * `tc_turn_event` (the turn timeline a control page shows). A commit's events are folded in
 * memory and written once, at its last event.
 */
export const channelProjection: Projection<ChannelEvent> = {
  name: Durables.coordinatorProjection,
  filterSubject: subject.aggregate('channel', '>'),
  async apply(em, event, meta) {
    const channelId = channelIdOf(meta);
    const events = meta.envelope.data.events;
    const idx = events.indexOf(event);
    if (idx === 0 || draft?.seq !== meta.seq) {
      const rows = (await sql(em, 'select state from tc_channel where channel_id = ?', [
        channelId,
      ])) as { state: ChannelState }[];
      draft = {
        seq: meta.seq,
        state: rows[0]?.state ?? initialChannelState(channelId),
        timeline: [],
      };
    }
    draft.state = evolveChannel(draft.state, event);
    if (timelineWorthy(event)) {
      const f = timelineFields(event);
      draft.timeline.push([
        idx,
        event.type,
        f.agentId,
        f.turnId,
        f.cycle,
        JSON.stringify(event.data),
      ]);
    }
    if (idx === events.length - 1) {
      const done = draft;
      draft = undefined;
      await writeChannel(em, channelId, done, meta.envelope.at);
    }
  },
};

/** `tc_identity`: the identity registry as a table. */
export const identityProjection: Projection<IdentityEvent> = {
  name: Durables.coordinatorIdentityProjection,
  filterSubject: subject.aggregate('identity', '>'),
  async apply(em, event) {
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
        return;
      }
      case 'IdentityRemoved':
        await sql(em, 'delete from tc_identity where discord_user_id = ?', [
          event.data.discordUserId,
        ]);
        return;
      default: {
        const unreachable: never = event;
        throw new Error(`unknown identity event ${JSON.stringify(unreachable)}`);
      }
    }
  },
};
