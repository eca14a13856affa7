import { Kvm, type KV } from '@nats-io/kv';
import { Buckets, subject } from '@dirigent/contracts';
import { EventStore, foldAggregate, type KvSnapshotStore } from '@dirigent/event-store';
import { snowflake, waitFor } from '@dirigent/testing';
import {
  DEFAULT_TURN_CONFIG,
  evolveChannel,
  initialChannelState,
  type ChannelEvent,
  type ChannelState,
} from '@dirigent/turn-domain';
import { openChannelSnapshots } from '../adapters/channel-snapshots';
import { Channels, channelSubject, SNAPSHOT_EVERY_COMMITS } from '../application/channels';
import { Harness, makeAgents } from './harness';

/**
 * The coordinator snapshots a busy channel (its reactor, every SNAPSHOT_EVERY_COMMITS commits)
 * in the KV bucket; a restarted coordinator's channel state (snapshot + the commits after it)
 * equals the replay of its whole history, and a bad snapshot is replayed around.
 */
describe('turn coordinator: channel snapshots through NATS', () => {
  let h: Harness;
  let store: EventStore;
  let snapshots: KvSnapshotStore<ChannelState>;
  let kv: KV;
  let channelId: string;
  const config = DEFAULT_TURN_CONFIG;

  beforeAll(async () => {
    // Agents that never pass and no loop breaker: the channel keeps taking turns.
    h = await Harness.start({ DIRIGENT_MAX_CYCLES_WITHOUT_HUMAN: '0' });
    store = new EventStore(h.messaging);
    snapshots = await openChannelSnapshots(h.messaging);
    kv = await new Kvm(h.messaging.client.js).open(Buckets.channelSnapshots);
    const agents = makeAgents(3, 'snap');
    await h.register(agents);
    ({ channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'snapshots',
      participants: [agents[1].userId, agents[2].userId],
    }));
    await h.runAgents(channelId, agents, (a, g) => `${a.agentId} speaks in cycle ${g.cycle}`);
    await h.fake.post(h.guildId, channelId, snowflake(), 'go on, all of you', false);
    // Two snapshots' worth of commits.
    await waitFor(
      async () =>
        ((await snapshots.read(channelSubject(channelId)))?.state.turnSeq ?? 0) > 0 &&
        (await store.loadCommits(channelSubject(channelId))).length > SNAPSHOT_EVERY_COMMITS * 2,
      60_000,
      100,
      'a snapshot and two snapshot intervals of commits',
    );
    await h.stopApp();
  }, 90_000);

  afterAll(async () => {
    await h?.close();
  });

  const fold = (withSnapshots: boolean) =>
    foldAggregate<ChannelEvent, ChannelState>(
      store,
      channelSubject(channelId),
      { initialState: () => initialChannelState(channelId), evolve: evolveChannel },
      withSnapshots ? { snapshots } : {},
    );

  it('keeps one snapshot of the channel, of a commit of its history', async () => {
    const snap = (await snapshots.read(channelSubject(channelId)))!;
    const commits = await store.loadCommits<ChannelEvent>(channelSubject(channelId));
    const at = commits.findIndex((c) => c.seq === snap.version);
    expect(commits[at].envelope.id).toBe(snap.commitId);
    const replayed = commits
      .slice(0, at + 1)
      .reduce(
        (s, c) => c.envelope.data.events.reduce(evolveChannel, s),
        initialChannelState(channelId),
      );
    expect(snap.state).toEqual(replayed);
    // History 1: the bucket keeps this one entry for the channel, not every snapshot written.
    const kept = [];
    for await (const e of await kv.history({ key: channelSubject(channelId) })) kept.push(e);
    expect(kept).toHaveLength(1);
  });

  it('a restarted coordinator loads the channel from the snapshot and the commits after it', async () => {
    const all = await fold(false);
    const loaded = await fold(true);
    expect(loaded.fromSnapshot).toBe(true);
    expect(loaded.folded).toBeLessThan(all.folded);
    expect(loaded.state).toEqual(all.state);
    expect(loaded.version).toBe(all.version);
    expect(await new Channels(store, config, snapshots).state(channelId)).toEqual(all.state);
  });

  it.each([
    ['undecodable', () => 'garbage'],
    ['of an older schema', (s: string) => s.replace(/"schema":\d+/, '"schema":0')],
    ['of another channel', (s: string) => s.replace(/"channelId":"\d+"/, '"channelId":"1"')],
  ])('a snapshot %s is not used: the channel is replayed', async (_what, corrupt) => {
    const key = channelSubject(channelId);
    const good = (await kv.get(key))!.string();
    const all = await fold(false);
    // A poisoned state, so a snapshot that were wrongly used would show.
    await kv.put(key, corrupt(good.replace(/"turnSeq":\d+/, '"turnSeq":0')));
    try {
      const loaded = await fold(true);
      expect(loaded.fromSnapshot).toBe(false);
      expect(loaded.state).toEqual(all.state);
      expect(await new Channels(store, config, snapshots).state(channelId)).toEqual(all.state);
    } finally {
      await kv.put(key, good);
    }
  });
});
