/**
 * `npm run bench -- channel-load`: how long a restarted coordinator takes to load one channel
 * (its state from the event store, cold: nothing cached) as a function of how many commits
 * the channel ever had — the full replay against a snapshot plus the commits after it.
 * Histories are real: a chat channel of three agents driven through the channel decider
 * (humans waking it, speakers answering and delivering, passes), one commit per decision.
 */
import { randomInt } from 'node:crypto';
import { Aggregates, subject as subjects } from '@dirigent/contracts';
import { CommandHandler, EventStore, type SnapshotStore } from '@dirigent/event-store';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, snowflake, testMessaging } from '@dirigent/testing';
import {
  decideChannel,
  evolveChannel,
  initialChannelState,
  type ChannelCommand,
  type ChannelEvent,
  type ChannelState,
} from '@dirigent/turn-domain';
import { ALICE, BOB, CAROL, chatWorld } from '../libs/turn-domain/testing/channel-world';
import { SNAPSHOT_EVERY_COMMITS } from '../services/turn-coordinator/application/channels';
import { openChannelSnapshots } from '../services/turn-coordinator/adapters/channel-snapshots';
import { msSince, percentile, round, type BenchResult } from './stats';

const LENGTHS = [100, 1000, 5000];
const ROUNDS = 7;

/** A busy chat channel written to `subj`: `more(n)` appends n more commits. */
async function history(store: EventStore, subj: string, channelId: string) {
  const world = chatWorld([ALICE, BOB, CAROL], { shuffle: true, seed: 7 });
  let version = 0;
  const append = async (events: readonly ChannelEvent[]) => {
    if (events.length) version = await store.append(subj, [...events], version);
  };
  // The world's own channel id is fixed: rewrite it into ours (ids are data, not keys).
  const fix = (events: readonly ChannelEvent[]) =>
    JSON.parse(JSON.stringify(events).replaceAll(`"${world.state.channelId}"`, `"${channelId}"`));
  await append(fix(world.log));
  let n = 1;
  const more = async (commits: number) => {
    for (const end = n + commits; n < end; ) {
      const turn = world.state.currentTurn;
      const step = !turn ? 'human' : randomInt(5) === 0 ? 'pass' : 'speak';
      const out =
        step === 'human'
          ? world.human(`hello ${n}`)
          : step === 'pass'
            ? world.pass()
            : world.speak(`${turn!.agentId} answers ${n} with something`);
      await append(fix(out.events));
      n++;
    }
  };
  return more;
}

/** Commits after the snapshot when a channel is loaded: half the snapshot interval. */
const TAIL = Math.round(SNAPSHOT_EVERY_COMMITS / 2);

function handler(store: EventStore, channelId: string, snapshots?: SnapshotStore<ChannelState>) {
  return new CommandHandler<ChannelCommand, ChannelEvent, ChannelState>(
    store,
    {
      initialState: () => initialChannelState(channelId),
      decide: (c, s) => {
        const d = decideChannel(c, s);
        if (!d.ok) throw new Error(d.error.code);
        return [...d.events];
      },
      evolve: evolveChannel,
    },
    snapshots ? { snapshots, snapshotEvery: SNAPSHOT_EVERY_COMMITS } : {},
  );
}

async function timeLoad(
  make: () => CommandHandler<ChannelCommand, ChannelEvent, ChannelState>,
  subj: string,
) {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const h = make();
    const c0 = process.cpuUsage();
    const t = process.hrtime.bigint();
    await h.state(subj);
    wall.push(msSince(t));
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { wall: percentile(wall, 50), cpu: percentile(cpu, 50) };
}

export async function benchChannelLoad(): Promise<BenchResult> {
  const m: Messaging = await testMessaging('bench-channel-load');
  const out: BenchResult = {};
  try {
    const store = new EventStore(m);
    const snapshots = await openChannelSnapshots(m, { bucket: `bench_snapshots_${snowflake()}` });
    try {
      for (const length of LENGTHS) {
        const channelId = snowflake();
        const subj = subjects.aggregate(Aggregates.channel, channelId);
        const more = await history(store, subj, channelId);
        await more(length - 1 - TAIL);
        // The first snapshotted load writes the snapshot (it folded everything).
        await handler(store, channelId, snapshots).state(subj);
        await snapshots.flush();
        await more(TAIL);
        const full = await timeLoad(() => handler(store, channelId), subj);
        const snap = await timeLoad(() => handler(store, channelId, snapshots), subj);
        out[`load ${length} commits, full replay p50 (ms)`] = round(full.wall, 1);
        out[`load ${length} commits, full replay CPU p50 (ms)`] = round(full.cpu, 1);
        out[`load ${length} commits, snapshot + ${TAIL} p50 (ms)`] = round(snap.wall, 1);
        out[`load ${length} commits, snapshot + ${TAIL} CPU p50 (ms)`] = round(snap.cpu, 1);
      }
    } finally {
      await snapshots.destroy();
    }
  } finally {
    await closeMessaging(m);
  }
  return out;
}
