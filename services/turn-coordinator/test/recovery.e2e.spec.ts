import { Kvm } from '@nats-io/kv';
import { Buckets, subject } from '@dirigent/contracts';
import { spawnService, snowflake, waitFor, type Spawned } from '@dirigent/testing';
import { coordinatorEnv, Harness, makeAgents, type Agent } from './harness';

const MAIN = 'dist/services/turn-coordinator/main.js';
const TIMEOUT_MS = 3000;

/**
 * The built coordinator as a child process, SIGKILLed in the middle of delivery waits and
 * restarted: no grant is lost and none is doubled (`npm run build` first).
 */
describe('turn coordinator: SIGKILL and restart during a delivery wait', () => {
  let h: Harness;
  let agents: Agent[];
  let child: Spawned | undefined;
  const human = snowflake();

  const start = async () => {
    child = await spawnService(
      MAIN,
      'TURN_COORDINATOR_PORT',
      coordinatorEnv(h.fake.moderatorId, {
        DIRIGENT_DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
        LOG_LEVEL: 'warn',
      }),
    );
  };

  const timerPending = async (turnId: string) => {
    const kv = await new Kvm(h.messaging.client.js).open(Buckets.timers);
    const key = `turn-coordinator.${Buffer.from(`delivery-timeout:${turnId}`).toString('base64url')}`;
    return waitFor(async () => (await kv.get(key))?.operation === 'PUT', 10_000, 25, 'timer');
  };

  beforeAll(async () => {
    h = await Harness.start({}, false);
    agents = makeAgents(2, 'kill');
    await start();
    await h.register(agents);
  });

  afterAll(async () => {
    await child?.kill('SIGTERM');
    await h?.close();
  });

  it('confirms a delivery that arrives after a restart, and times out across another', async () => {
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'sigkill',
      participants: [agents[1].userId],
    });
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, human, 'wake up', false);
    await waitFor(() => grants.length === 1, 10_000);
    const first = agents.find((a) => a.agentId === grants[0].agentId)!;
    const second = agents.find((a) => a !== first)!;

    // The first speaker finishes a real turn; its Discord message has not arrived yet.
    const reply = 'Here is my considered answer, delivered after the crash.';
    await h.relay.completeTurn({
      guildId: h.guildId,
      channelId,
      agentId: first.agentId,
      runId: `run-${snowflake()}`,
      text: reply,
    });
    await waitFor(async () => (await h.channel(channelId)).awaitingDelivery, 10_000);
    await timerPending(grants[0].turnId);
    await child!.kill('SIGKILL');
    await start();

    await h.fake.post(h.guildId, channelId, first.userId, `part one…\n${reply}`, true);
    // Generous: a message the killed process had not acknowledged comes back after ack-wait.
    await waitFor(() => grants.length === 2, 30_000);
    expect(grants[1]).toMatchObject({ agentId: second.agentId, reason: 'advance', cycle: 1 });

    // The second speaker's reply never shows up; the coordinator dies with the timer pending.
    await h.relay.completeTurn({
      guildId: h.guildId,
      channelId,
      agentId: second.agentId,
      runId: `run-${snowflake()}`,
      text: 'This one is lost on the way to Discord.',
    });
    await waitFor(async () => (await h.channel(channelId)).awaitingDelivery, 10_000);
    await timerPending(grants[1].turnId);
    await child!.kill('SIGKILL');
    await start();

    await waitFor(() => grants.length === 3, TIMEOUT_MS + 30_000);
    expect(grants[2]).toMatchObject({ reason: 'new-cycle', cycle: 2 });
    // A replayed reaction after the restart must not grant again.
    await new Promise((r) => setTimeout(r, 1000));
    expect(grants).toHaveLength(3);
    expect(new Set(grants.map((g) => g.turnId)).size).toBe(3);
    const view = await h.channel(channelId);
    expect(view).toMatchObject({ currentSpeaker: grants[2].agentId, dormant: false });
  });
});
