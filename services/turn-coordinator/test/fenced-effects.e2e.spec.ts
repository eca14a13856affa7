import { Aggregates, subject, type Envelope, type TurnGranted } from '@dirigent/contracts';
import type { Commit } from '@dirigent/event-store';
import { spawnService, snowflake, waitFor, type Spawned } from '@dirigent/testing';
import type { ChannelEvent } from '@dirigent/turn-domain';
import { coordinatorEnv, Harness, makeAgents, type Agent } from './harness';

const MAIN = 'dist/services/turn-coordinator/main.js';
const KILLS = 4;

/**
 * The built coordinator SIGKILLed the moment a grant is committed (before or while its
 * reactor performs it) and restarted at once: every grant is published once on core NATS,
 * none for a turn that has ended, and the next instance publishes the pending grant (`npm run
 * build` first). How fast it does so is measured by `npm run bench` (turn-coordinator suite).
 */
describe('turn coordinator: effects fenced by turn across SIGKILLs', () => {
  let h: Harness;
  let agents: Agent[];
  let child: Spawned | undefined;
  const human = snowflake();

  const start = async (): Promise<void> => {
    child = await spawnService(
      MAIN,
      'TURN_COORDINATOR_PORT',
      coordinatorEnv(h.fake.moderatorId, { LOG_LEVEL: 'warn' }),
    );
  };

  beforeAll(async () => {
    h = await Harness.start({}, false);
    agents = makeAgents(2, 'fence');
    await start();
    await h.register(agents);
  });

  afterAll(async () => {
    await child?.kill('SIGTERM');
    await h?.close();
  });

  it('publishes each grant once, none stale, and the pending one after a restart', async () => {
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'fenced',
      participants: [agents[1].userId],
    });
    // What every core-NATS subscriber sees (no JetStream de-duplication in between).
    const core: string[] = [];
    const grantSub = h.messaging.client.nc.subscribe(subject.turnGranted(channelId), {
      callback: (_e, m) => {
        core.push(m.json<Envelope<TurnGranted>>().data.turnId);
      },
    });
    const committed: string[] = [];
    let onGrantCommitted: (() => void) | undefined;
    const commitSub = h.messaging.client.nc.subscribe(
      subject.aggregate(Aggregates.channel, channelId),
      {
        callback: (_e, m) => {
          for (const e of m.json<Envelope<Commit<ChannelEvent>>>().data.events) {
            if (e.type !== 'TurnGranted') continue;
            committed.push(e.data.turnId);
            onGrantCommitted?.();
          }
        },
      },
    );
    h.onCleanup(async () => {
      grantSub.unsubscribe();
      commitSub.unsubscribe();
    });
    let n = 0;
    await h.runAgents(channelId, agents, (a) => `Reply ${++n} from ${a.agentId}, with some words.`);

    for (let kill = 0; kill < KILLS; kill++) {
      const killed = new Promise<void>((resolve) => {
        onGrantCommitted = () => {
          onGrantCommitted = undefined;
          void child!.kill('SIGKILL').then(resolve);
        };
      });
      // A human now and then, or the loop breaker sends the channel dormant.
      await h.fake.post(h.guildId, channelId, human, `still here (${kill})`, false);
      await killed;
      const turnId = committed[committed.length - 1];
      await start();
      await waitFor(() => core.includes(turnId), 15_000, 10, `grant ${turnId}`);
    }
    // The channel keeps moving after the last restart.
    await h.fake.post(h.guildId, channelId, human, 'carry on', false);
    const before = committed.length;
    await waitFor(() => committed.length >= before + 2, 45_000, 50, 'two more grants').catch(
      (e: Error) => {
        throw new Error(`${e.message}\ncommitted ${committed.join(' ')}\n${child!.output()}`);
      },
    );
    await new Promise((r) => setTimeout(r, 2500));

    const ids = core;
    expect(new Set(ids).size).toBe(ids.length);
    // Grants go out in commit order (a turn that ended before its grant went out has none).
    const positions = ids.map((id) => committed.indexOf(id));
    expect(positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]))).toBe(true);
  });
});
