import { FakeDiscord } from '@dirigent/discord-fake';
import {
  freePort,
  spawnNode,
  testDatabaseUrl,
  testNatsUrl,
  uid,
  type Spawned,
} from '@dirigent/testing';

const MAIN = 'dist/services/discord-ingest/main.js';

/**
 * The built ingest against the local Discord when Discord refuses the bot for good: it ends
 * with one line saying what to enable or replace and where, exits non-zero, and prints no
 * stack trace.
 */
describe('discord-ingest: Discord refuses the bot', () => {
  let discord: FakeDiscord;
  let child: Spawned | undefined;

  beforeAll(async () => {
    discord = await FakeDiscord.start({ token: uid('token') });
  });
  afterEach(async () => {
    await child?.kill('SIGKILL');
    child = undefined;
    discord.refuseIdentify(null);
  });
  afterAll(async () => {
    await discord.stop();
  });

  /** Runs the ingest until it exits (60 s at most): its exit code and everything it printed. */
  async function run(token: string): Promise<{ code: number | null; output: string }> {
    child = spawnNode(MAIN, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      DISCORD_INGEST_PORT: String(await freePort()),
      DISCORD_TOKEN: token,
      DISCORD_API_URL: discord.apiUrl,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    });
    const spawned = child;
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the ingest did not exit in 60 s:\n${spawned.output()}`)),
        60_000,
      );
      spawned.child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    return { code, output: spawned.output() };
  }

  const linesWith = (output: string, text: string) =>
    output.split('\n').filter((l) => l.includes(text));

  it('a privileged intent not enabled (4014): says to enable Message Content and Server Members', async () => {
    discord.refuseIdentify(4014, 'Disallowed intent(s).');
    const { code, output } = await run(discord.token);
    expect(code).toBe(3);
    expect(linesWith(output, 'close code 4014')).toEqual([
      'Discord refused the privileged intents (close code 4014): in the Discord Developer Portal → your application → Bot → Privileged Gateway Intents, enable Message Content Intent and Server Members Intent, save, and start again.',
    ]);
    expect(output).not.toMatch(/^\s+at /m);
  });

  it('a token the gateway refuses (4004): says where to get a new one', async () => {
    discord.refuseIdentify(4004, 'Authentication failed.');
    const { code, output } = await run(discord.token);
    expect(code).toBe(3);
    expect(linesWith(output, 'close code 4004')).toEqual([
      'Discord refused DISCORD_TOKEN (close code 4004): in the Discord Developer Portal → your application → Bot, press Reset Token and put the new token in DISCORD_TOKEN, then start again.',
    ]);
    expect(output).not.toMatch(/^\s+at /m);
  });

  it('a token the REST login refuses (401): the same advice, at once', async () => {
    const { code, output } = await run('not-the-token');
    expect(code).toBe(3);
    expect(linesWith(output, 'Discord refused DISCORD_TOKEN (HTTP 401)')).toHaveLength(1);
    expect(output).not.toMatch(/^\s+at /m);
  });
});
