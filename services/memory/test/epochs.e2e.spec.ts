import { Kvm } from '@nats-io/kv';
import { Buckets, Subjects, type MemoryEpoch } from '@dirigent/contracts';
import { epochTimerKey } from '@dirigent/memory-domain';
import { spawnService, snowflake, waitFor, type Spawned } from '@dirigent/testing';
import { epochEvents, MemoryHarness, memoryEnv, TestGuild } from './harness';

jest.setTimeout(120_000);

const MAIN = 'dist/services/memory/main.js';
const GAP_MS = 3000;

/**
 * The built memory service, SIGKILLed while a channel's epoch timer is pending and started
 * again after the gap has passed: the epoch closes exactly once (`npm run build` first).
 */
describe('memory: epoch close across SIGKILL', () => {
  let talk: MemoryHarness;
  let child: Spawned | undefined;

  const start = async () => {
    child = await spawnService(
      MAIN,
      'MEMORY_PORT',
      memoryEnv({ DIRIGENT_EPOCH_GAP_MS: String(GAP_MS), LOG_LEVEL: 'warn' }),
    );
  };

  beforeAll(async () => {
    talk = await MemoryHarness.connect();
    await start();
  });
  afterAll(async () => {
    await child?.kill('SIGKILL');
    await talk?.stop();
  });

  it('neither loses nor doubles the epoch', async () => {
    const g = new TestGuild(talk.messaging);
    const channel = snowflake();
    const author = snowflake();
    for (let i = 0; i < 3; i++) {
      await g.say(channel, author, `message ${i} before the crash`, {
        createdAt: new Date().toISOString(),
      });
    }
    await talk.waitForCount(g.guildId, author, 3);
    const kv = await new Kvm(talk.messaging.client.js).open(Buckets.timers);
    const key = `memory.${Buffer.from(epochTimerKey(g.guildId, channel)).toString('base64url')}`;
    await waitFor(async () => (await kv.get(key))?.operation === 'PUT', 10_000, 25, 'timer');

    await child!.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, GAP_MS + 500));
    expect(await epochEvents(talk, g.guildId, channel)).toBe(0);
    await start();

    const { epochs } = await waitFor(
      async () => {
        const r = await talk.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
          guildId: g.guildId,
        });
        return r.epochs.length ? r : null;
      },
      30_000,
      200,
      'the epoch after restart',
    );
    expect(epochs).toHaveLength(1);
    expect(epochs[0].messageCount).toBe(3);
    await waitFor(async () => (await epochEvents(talk, g.guildId, channel)) >= 1);
    // A second kill right away changes nothing.
    await child!.kill('SIGKILL');
    await start();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await epochEvents(talk, g.guildId, channel)).toBe(1);
    const again = await talk.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
      guildId: g.guildId,
    });
    expect(again.epochs).toHaveLength(1);
  });
});
