import { Kvm, type KV } from '@nats-io/kv';
import { EventStore, foldAggregate, type KvSnapshotStore } from '@dirigent/event-store';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, snowflake, testMessaging, uid } from '@dirigent/testing';
import {
  DEFAULT_TURN_CONFIG,
  evolveChannel,
  initialChannelState,
  type ChannelEvent,
  type ChannelState,
} from '@dirigent/turn-domain';
import { openChannelSnapshots } from '../adapters/channel-snapshots';
import { Channels, channelSubject, SNAPSHOT_EVERY_COMMITS } from '../application/channels';

const config = { ...DEFAULT_TURN_CONFIG, speakerTimeoutMs: 0 };

describe('channel snapshots through NATS', () => {
  let messaging: Messaging;
  let store: EventStore;
  let snapshots: KvSnapshotStore<ChannelState>;
  let kv: KV;
  const bucket = `test_channel_snapshots_${uid('b').replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const agents = [0, 1, 2].map((i) => ({ agentId: uid(`snap${i}`), discordUserId: snowflake() }));
  const guildId = snowflake();
  const human = snowflake();

  beforeAll(async () => {
    messaging = await testMessaging('channel-snapshots-test');
    store = new EventStore(messaging);
    snapshots = await openChannelSnapshots(messaging, { bucket });
    kv = await new Kvm(messaging.client.js).open(bucket);
  });
  afterAll(async () => {
    await snapshots?.destroy();
    await closeMessaging(messaging);
  });

  /** A chat channel that took turns for `commits` commits, through a coordinator's Channels. */
  async function busyChannel(commits: number): Promise<{ channelId: string; state: ChannelState }> {
    const channels = new Channels(store, config, snapshots);
    const channelId = snowflake();
    await channels.execute(channelId, {
      type: 'CreateChannel',
      data: { guildId, mode: 'chat', agents },
    });
    let written = 1;
    const message = (authorId: string, content: string, agentId: string | null = null) =>
      channels.execute(channelId, {
        type: 'ObserveMessage',
        data: {
          messageId: snowflake(),
          authorId,
          authorIsBot: agentId !== null,
          content,
          isModerator: false,
          agentIdOfAuthor: agentId,
        },
      });
    while (written < commits) {
      const turn = (await channels.state(channelId)).currentTurn;
      const text = `reply ${written}`;
      const out = !turn
        ? await message(human, `hello ${written}`)
        : turn.phase === 'running'
          ? await channels.execute(channelId, {
              type: 'CompleteTurn',
              data: { agentId: turn.agentId, runId: `run-${written}`, text, turnId: turn.turnId },
            })
          : await message(turn.discordUserId, `reply ${written - 1}`, turn.agentId);
      if (out.events.length) written++;
    }
    await snapshots.flush();
    return { channelId, state: await channels.state(channelId) };
  }

  const fold = (channelId: string) =>
    foldAggregate<ChannelEvent, ChannelState>(
      store,
      channelSubject(channelId),
      { initialState: () => initialChannelState(channelId), evolve: evolveChannel },
      { snapshots },
    );

  it('a restarted coordinator loads a channel from its snapshot and the commits after it', async () => {
    const { channelId, state } = await busyChannel(SNAPSHOT_EVERY_COMMITS * 2 + 5);
    expect(state.turnSeq).toBeGreaterThan(10);
    const snap = await snapshots.read(channelSubject(channelId));
    expect(snap?.state.turnSeq).toBeGreaterThan(5);

    const folded = await fold(channelId);
    expect(folded).toMatchObject({ fromSnapshot: true, folded: 5 });
    expect(folded.state).toEqual(state);

    const restarted = new Channels(store, config, snapshots);
    expect(await restarted.state(channelId)).toEqual(state);
  });

  it.each([
    ['undecodable', () => 'garbage'],
    ['of an older schema', (s: string) => s.replace(/"schema":\d+/, '"schema":0')],
    ['of another channel', (s: string) => s.replace(/"channelId":"\d+"/, '"channelId":"1"')],
  ])('a snapshot %s is not used: the channel is replayed', async (_what, corrupt) => {
    const { channelId, state } = await busyChannel(SNAPSHOT_EVERY_COMMITS + 3);
    const key = channelSubject(channelId);
    const stored = (await kv.get(key))!.string();
    // A poisoned state, so a snapshot that were wrongly used would show.
    await kv.put(key, corrupt(stored.replace(/"turnSeq":\d+/, '"turnSeq":0')));

    const folded = await fold(channelId);
    expect(folded.fromSnapshot).toBe(false);
    expect(folded.state).toEqual(state);
    expect(await new Channels(store, config, snapshots).state(channelId)).toEqual(state);
  });
});
