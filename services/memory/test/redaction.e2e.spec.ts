import { Subjects, type MemoryEpoch } from '@dirigent/contracts';
import { freePort, snowflake, spawnNode, waitFor, type Spawned } from '@dirigent/testing';
import { echoAnswer, layersHolding, startEchoModel, type EchoModel } from './echo-model';
import { MemoryHarness, memoryEnv, TestGuild } from './harness';

jest.setTimeout(120_000);

const MAIN = 'dist/services/memory/main.js';
const SECRET = 'Kathmandu';

/**
 * The built memory service SIGKILLed in the middle of a redaction (the epoch being
 * summarised again without the deleted message, its model call held) and started again:
 * the job resumes and within 10 s no layer holds the text (`npm run build` first).
 */
describe('memory: a deletion survives SIGKILL mid-cleanup', () => {
  let model: EchoModel;
  let talk: MemoryHarness;
  let child: Spawned | undefined;

  const start = async () => {
    const port = await freePort();
    child = spawnNode(
      MAIN,
      memoryEnv({
        DIRIGENT_EPOCH_GAP_MS: '1500',
        DIRIGENT_MEMORY_GATEWAY_TIMEOUT_MS: '5000',
        MEMORY_PORT: String(port),
        LOG_LEVEL: 'warn',
      }) as Record<string, string>,
    );
    await waitFor(
      async () => {
        if (child!.child.exitCode !== null) throw new Error(child!.output());
        const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        return res?.ok ?? false;
      },
      30_000,
      100,
      'memory to start',
    );
  };

  beforeAll(async () => {
    model = await startEchoModel();
    talk = await MemoryHarness.connect();
    await start();
  });
  afterAll(async () => {
    await child?.kill('SIGKILL');
    await talk?.stop();
    await model?.close();
  });

  it('resumes the redaction after the restart and finishes it within 10 s', async () => {
    const g = new TestGuild(talk.messaging);
    const channel = snowflake();
    const [ann, ben] = [snowflake(), snowflake()];
    const now = Date.now();
    const secret = await g.say(channel, ann, `we are flying to ${SECRET} in spring`, {
      createdAt: new Date(now).toISOString(),
    });
    await g.say(channel, ben, 'book the window seats', {
      createdAt: new Date(now + 10).toISOString(),
    });
    await g.say(channel, ann, 'and pack the hiking boots', {
      createdAt: new Date(now + 20).toISOString(),
    });
    await waitFor(
      async () => {
        const r = await talk.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
          guildId: g.guildId,
        });
        return r.epochs.some((e) => e.summary.includes(SECRET));
      },
      30_000,
      100,
      'the epoch quoting the message',
    );

    // The re-summary after the deletion hangs in the model until the process is killed.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const summarizes = () =>
      model.upstream.seen.filter((s) =>
        JSON.stringify(s.body).includes('Summarise one finished conversation'),
      ).length;
    const before = summarizes();
    model.upstream.behave = (seen) =>
      JSON.stringify(seen.body).includes('Summarise one finished conversation')
        ? { kind: 'hold', until: held, then: { kind: 'ok', text: echoAnswer(seen) } }
        : { kind: 'ok', text: echoAnswer(seen) };
    await g.delete(channel, secret);
    await waitFor(async () => summarizes() > before, 10_000, 25, 'the redaction under way');
    expect(await layersHolding(talk, g.guildId, channel, SECRET)).toContain('epoch summary');
    await child!.kill('SIGKILL');

    model.upstream.behave = (seen) => ({ kind: 'ok', text: echoAnswer(seen) });
    release();
    const restartedAt = Date.now();
    await start();
    await waitFor(
      async () => (await layersHolding(talk, g.guildId, channel, SECRET)).length === 0,
      10_000,
      100,
      'every layer without the deleted text after the restart',
    );
    expect(Date.now() - restartedAt).toBeLessThan(15_000);
    const { epochs } = await talk.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
      guildId: g.guildId,
    });
    expect(epochs.reduce((n, e) => n + e.messageCount, 0)).toBe(2);
    expect(epochs.map((e) => e.summary).join(' ')).toContain('hiking boots');
  });
});
