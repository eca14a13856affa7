import type { EntityManager } from '@mikro-orm/postgresql';
import { Durables, subject } from '@dirigent/contracts';
import type { Projection, ProjectionCommit } from '@dirigent/event-store';
import {
  describeChannel,
  evolveChannel,
  initialChannelState,
  type ChannelEvent,
  type ChannelState,
} from '@dirigent/turn-domain';

/**
 * A statement with bind parameters sent as such: MikroORM's `execute` inlines them into
 * the SQL text, which for a batch's multi-row statements cost more than Postgres did.
 */
export async function sql(em: EntityManager, query: string, params: unknown[]) {
  const q = em.getKnex().raw(query, params as never[]);
  const tx = em.getTransactionContext();
  if (tx) void q.transacting(tx);
  return ((await q) as { rows: unknown[] }).rows;
}

/** The aggregate id is the subject's last token (`dirigent.es.channel.<channelId>`). */
const aggregateId = (subj: string) => subj.slice(subj.lastIndexOf('.') + 1);

/** Timeline entries worth keeping: everything but plain message sightings. */
function timelineWorthy(event: ChannelEvent): boolean {
  return event.type !== 'MessageSeen' || event.data.reaction !== 'none';
}

function timelineRow(channelId: string, seq: number, idx: number, event: ChannelEvent, at: string) {
  const d = event.data as Record<string, unknown>;
  const str = (k: string) => (typeof d[k] === 'string' ? (d[k] as string) : null);
  return [
    channelId,
    String(seq),
    idx,
    event.type,
    str('agentId') ?? str('callerAgentId') ?? str('initiatorAgentId'),
    str('turnId'),
    typeof d.cycle === 'number' ? d.cycle : null,
    JSON.stringify(event.data),
    at,
  ];
}

function channelRow(state: ChannelState, version: number): unknown[] {
  const v = describeChannel(state);
  const turn = state.currentTurn;
  return [
    state.channelId,
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
    String(version),
  ];
}

const CHANNEL_COLUMNS = `channel_id, guild_id, mode, tm_state, speakers, current_speaker,
  current_turn_id, turn_phase, cycle, dormant, dormant_reason, multi_message, shuffle,
  wake_mode, discussion, last_message_id, state, version, updated_at`;
const CHANNEL_VALUES =
  '(?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?, now())';
const CHANNEL_UPDATE = [
  'guild_id',
  'mode',
  'tm_state',
  'speakers',
  'current_speaker',
  'current_turn_id',
  'turn_phase',
  'cycle',
  'dormant',
  'dormant_reason',
  'multi_message',
  'shuffle',
  'wake_mode',
  'discussion',
  'last_message_id',
  'state',
  'version',
]
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');

/** Rows per statement: far below Postgres's 65,535 bind parameters. */
const CHUNK = 1000;

async function insertChunked(
  em: EntityManager,
  rows: unknown[][],
  statement: (values: string) => string,
  placeholders: string,
) {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    await sql(em, statement(chunk.map(() => placeholders).join(', ')), chunk.flat());
  }
}

/**
 * Folds a batch of commits into `tc_channel` (each channel's state, with its columns for
 * queries) and `tc_turn_event` (the turn timeline). Each channel of the batch is read once
 * and written once; a commit the row already holds (version at or past it) is not folded
 * again. Raw multi-row statements because this is the catch-up hot path: `npm run bench`
 * (projection suite) measures it; one ORM flush per row was the 1-commit-per-transaction
 * consumer that fell 179,265 commits behind.
 */
export async function applyChannelCommits(
  em: EntityManager,
  commits: readonly ProjectionCommit<ChannelEvent>[],
): Promise<void> {
  const ids = [...new Set(commits.map((c) => aggregateId(c.subject)))];
  const existing = (await sql(
    em,
    `select channel_id, state, version from tc_channel where channel_id in (${ids.map(() => '?').join(', ')})`,
    ids,
  )) as { channel_id: string; state: ChannelState; version: string }[];
  const folded = new Map<string, { state: ChannelState; version: number }>(
    existing.map((r) => [r.channel_id, { state: r.state, version: Number(r.version) }]),
  );
  const changed = new Set<string>();
  const timeline: unknown[][] = [];
  for (const c of commits) {
    const channelId = aggregateId(c.subject);
    const f = folded.get(channelId) ?? { state: initialChannelState(channelId), version: 0 };
    c.envelope.data.events.forEach((event, idx) => {
      if (timelineWorthy(event))
        timeline.push(timelineRow(channelId, c.seq, idx, event, c.envelope.at));
    });
    if (c.seq <= f.version) continue;
    let state = f.state;
    for (const event of c.envelope.data.events) state = evolveChannel(state, event);
    folded.set(channelId, { state, version: c.seq });
    changed.add(channelId);
  }
  await insertChunked(
    em,
    [...changed].map((id) => channelRow(folded.get(id)!.state, folded.get(id)!.version)),
    (values) =>
      `insert into tc_channel (${CHANNEL_COLUMNS}) values ${values}
       on conflict (channel_id) do update set ${CHANNEL_UPDATE}, updated_at = now()`,
    CHANNEL_VALUES,
  );
  await insertChunked(
    em,
    timeline,
    (values) =>
      `insert into tc_turn_event (channel_id, seq, idx, type, agent_id, turn_id, cycle, data, at)
       values ${values} on conflict (seq, idx) do nothing`,
    '(?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)',
  );
}

/** The channel read model, fed by every channel aggregate of the event store. */
export const channelProjection: Projection<ChannelEvent> = {
  name: Durables.coordinatorProjection,
  filterSubject: subject.aggregate('channel', '>'),
  apply: applyChannelCommits,
  async reset(em) {
    await sql(em, 'delete from tc_turn_event', []);
    await sql(em, 'delete from tc_channel', []);
  },
};
