import { Buckets, StreamSpecs, Streams, Subjects } from '@dirigent/contracts';
import { FakeDiscord, type FakeChannel } from '@dirigent/discord-fake';
import { Messaging, NatsClient, ensureStream, leaseHolders } from '@dirigent/messaging';
import {
  snowflake,
  spawnService,
  testDatabaseUrl,
  testNatsUrl,
  uid,
  waitFor,
  type SpawnedService,
} from '@dirigent/testing';
import { readStream } from './harness';

const MAIN = 'dist/services/discord-ingest/main.js';
const SHARDS = 6;
const GUILDS = 30;
const REPLICAS = 3;
const KILL_EVERY_MS = 15_000;
const CHURN_MS = 120_000;

const quiet = () => undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Three built ingest replicas share six leased shards of thirty guilds; every 15 s for two
 * minutes one is SIGKILLed and started again (a new process, a new replica id), while
 * people keep posting and commands keep coming. Afterwards every message in Discord was
 * published exactly once (a dead replica's shards were taken over and caught up; what two
 * holders both saw is de-duplicated by its envelope id) and every command was executed
 * exactly once (its executor, shard 0's holder, moved with the lease; a redelivered send
 * carries the same nonce). `npm run build` first; about two and a half minutes.
 */
describe('discord-ingest: three replicas on six leased shards, one SIGKILLed every 15 s', () => {
  let discord: FakeDiscord;
  let client: NatsClient;
  let nats: Messaging;
  const replicas: { id: string; proc: SpawnedService }[] = [];
  const token = uid('token');
  let started = 0;

  const start = async () => {
    const id = `ingest-${++started}`;
    const proc = await spawnService(MAIN, 'DISCORD_INGEST_PORT', {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      DISCORD_TOKEN: token,
      DISCORD_API_URL: discord.apiUrl,
      DISCORD_SHARD_COUNT: String(SHARDS),
      DISCORD_INGEST_REPLICA_ID: id,
    });
    return { id, proc };
  };

  const holders = () => leaseHolders(nats, Buckets.ingestShardLeases, SHARDS);

  beforeAll(async () => {
    discord = await FakeDiscord.start({ token, shards: SHARDS });
    client = await NatsClient.connect({ url: testNatsUrl(), name: 'shard-takeover-e2e' });
    for (const spec of Object.values(StreamSpecs)) await ensureStream(client.jsm, spec);
    nats = new Messaging(client, 'shard-takeover-e2e', { info: quiet, warn: quiet, error: quiet });
    for (let i = 0; i < REPLICAS; i++) replicas.push(await start());
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) await r.proc.kill('SIGTERM');
    await nats?.close();
    await client?.close();
    await discord?.stop();
  });

  it('publishes every message once and executes every command once across the kills', async () => {
    const alice = discord.createUser({ id: snowflake(), username: 'alice' });
    const channels: FakeChannel[] = [];
    for (let i = 0; i < GUILDS; i++) {
      const g = discord.createGuild({ id: snowflake(), name: `shard-guild-${i}` });
      discord.addMember(g.id, alice.id);
      channels.push(discord.createChannel(g.id, { id: snowflake(), name: 'chat' }));
    }
    await waitFor(
      async () => {
        const held = (await holders()).filter(Boolean);
        return held.length === SHARDS && new Set(held).size === REPLICAS;
      },
      60_000,
      200,
      'each replica to hold shards',
    );
    const posted: string[] = [];
    const post = (c: FakeChannel) =>
      posted.push(discord.postMessage({ channelId: c.id, authorId: alice.id, content: 'hi' }).id);
    for (const c of channels) post(c);
    const published = async () =>
      readStream<{ messageId: string }>(
        nats,
        Streams.discordEvents,
        `${Subjects.discord.evtPrefix}.*.*.message.created`,
      );
    /** Throws how far it got, which waitFor names when it gives up. */
    const atLeast = async (what: string, n: () => Promise<number> | number, of: number) => {
      const got = await n();
      if (got < of) throw new Error(`${got} of ${of} ${what}`);
      return true;
    };
    await waitFor(
      () => atLeast('published', async () => (await published()).length, posted.length),
      60_000,
      500,
      'the first messages',
    );

    const commands: { channelId: string; content: string }[] = [];
    let churning = true;
    const traffic = (async () => {
      for (let i = 0; churning; i++) {
        const c = channels[i % channels.length];
        post(c);
        if (i % 3 === 0) {
          const content = `command ${commands.length} for ${c.id}`;
          commands.push({ channelId: c.id, content });
          await nats.publishEvent(Subjects.discord.cmdSendMessage, 'send-message', {
            guildId: c.guildId,
            channelId: c.id,
            content,
            purpose: 'notice',
          });
        }
        await sleep(150);
      }
    })();
    // How long each killed replica's shards stay without a live holder (reported, not
    // asserted: timing belongs to benchmarks).
    const takeovers: number[] = [];
    const churnStart = Date.now();
    for (let kill = 0; Date.now() - churnStart < CHURN_MS; kill++) {
      await sleep(KILL_EVERY_MS - (takeovers.at(-1) ?? 0));
      const i = kill % REPLICAS;
      const killed = replicas[i];
      await killed.proc.kill('SIGKILL');
      const at = Date.now();
      replicas[i] = await start();
      await waitFor(
        async () => (await holders()).every((r) => r !== undefined && r !== killed.id),
        60_000,
        100,
        `${killed.id}'s shards taken over`,
      );
      takeovers.push(Date.now() - at);
    }
    churning = false;
    await traffic;

    // Every shard held again, then everything in Discord is in the stream exactly once.
    await waitFor(async () => (await holders()).every(Boolean), 60_000, 500, 'every shard held');
    const sentByBot = () =>
      channels.flatMap((c) =>
        discord.channelMessages(c.id).filter((m) => m.authorId === discord.bot.id),
      );
    await waitFor(
      () => atLeast('executed', () => sentByBot().length, commands.length),
      120_000,
      500,
      'every command',
    );
    const everyMessage = () => [...posted, ...sentByBot().map((m) => m.id)];
    await waitFor(
      async () => {
        const ids = new Set((await published()).map((e) => e.data.messageId));
        const all = everyMessage();
        return atLeast('published', () => all.filter((id) => ids.has(id)).length, all.length);
      },
      120_000,
      1000,
      'every message published',
    );
    const counts = new Map<string, number>();
    for (const e of await published()) {
      counts.set(e.data.messageId, (counts.get(e.data.messageId) ?? 0) + 1);
    }
    expect(everyMessage().filter((id) => counts.get(id) !== 1)).toEqual([]);
    expect(counts.size).toBe(everyMessage().length);
    const executed = new Map<string, number>();
    for (const m of sentByBot()) executed.set(m.content, (executed.get(m.content) ?? 0) + 1);
    expect(commands.filter((c) => executed.get(c.content) !== 1)).toEqual([]);
    expect(executed.size).toBe(commands.length);
    expect(posted.length).toBeGreaterThan(500);
    console.log(
      `${takeovers.length} SIGKILLs; shards held again after ${takeovers.join(', ')} ms; ` +
        `${posted.length} messages and ${commands.length} commands each seen once`,
    );
  }, 420_000);
});
