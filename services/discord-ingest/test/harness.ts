import type { INestApplication } from '@nestjs/common';
import { DeliverPolicy } from '@nats-io/jetstream';
import { StreamSpecs, Streams, Subjects, type Envelope } from '@dirigent/contracts';
import { FakeDiscord, type FakeGuild, type FakeUser } from '@dirigent/discord-fake';
import { Messaging, NatsClient, ensureStream } from '@dirigent/messaging';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl, uid, waitFor } from '@dirigent/testing';
import { DiscordIngestService } from '../discord-ingest.module';
import { DiscordIngestRunner } from '../adapters/discord-ingest.runner';

const quiet = () => undefined;

/** A local Discord, the ingest service connected to it, and a NATS client for the test. */
export interface Harness {
  discord: FakeDiscord;
  app: INestApplication;
  port: number;
  nats: Messaging;
  guild: FakeGuild;
  /** Stops only the service (Discord and NATS stay). */
  stopApp(): Promise<void>;
  /** Starts the service again against the same local Discord. */
  startApp(): Promise<void>;
  /** Has Manage Channels. */
  alice: FakeUser;
  bob: FakeUser;
  otherBot: FakeUser;
  stop(): Promise<void>;
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const token = uid('token');
  const discord = await FakeDiscord.start({ token });
  const alice = discord.createUser({ id: snowflake(), username: 'alice' });
  const bob = discord.createUser({ id: snowflake(), username: 'bob' });
  const otherBot = discord.createUser({ id: snowflake(), username: 'other-agent', bot: true });
  const guild = discord.createGuild({ id: snowflake(), name: 'e2e', ownerId: snowflake() });
  discord.addMember(guild.id, alice.id, { manageChannels: true });
  discord.addMember(guild.id, bob.id);
  discord.addMember(guild.id, otherBot.id);
  const client = await NatsClient.connect({ url: testNatsUrl(), name: 'discord-ingest-e2e' });
  for (const spec of Object.values(StreamSpecs)) await ensureStream(client.jsm, spec);
  const nats = new Messaging(client, 'discord-ingest-e2e', {
    info: quiet,
    warn: quiet,
    error: quiet,
  });
  const boot = async () => {
    const started = await startServiceApp(DiscordIngestService, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DISCORD_INGEST_PORT: '0',
      DISCORD_TOKEN: token,
      DISCORD_API_URL: discord.apiUrl,
      ...env,
    });
    const ready = started.app.get(DiscordIngestRunner).ready;
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('discord-ingest not ready in 30 s')), 30_000).unref(),
    );
    try {
      await Promise.race([ready, timeout]);
    } catch (e) {
      await started.app.close();
      throw e;
    }
    return started;
  };
  let app: INestApplication;
  let port: number;
  try {
    ({ app, port } = await boot());
  } catch (e) {
    await nats.close();
    await client.close();
    await discord.stop();
    throw e;
  }
  let running = true;
  const h: Harness = {
    discord,
    get app() {
      return app;
    },
    get port() {
      return port;
    },
    nats,
    guild,
    alice,
    bob,
    otherBot,
    async stopApp() {
      if (running) await app.close();
      running = false;
    },
    async startApp() {
      ({ app, port } = await boot());
      running = true;
    },
    async stop() {
      await h.stopApp();
      await nats.close();
      await client.close();
      await discord.stop();
    },
  };
  return h;
}

/** One more ingest replica (the same bot) against the harness's local Discord, started. */
export async function startReplica(
  h: Harness,
  env: Record<string, string>,
): Promise<INestApplication> {
  const { app } = await startServiceApp(DiscordIngestService, {
    NATS_URL: testNatsUrl(),
    DATABASE_URL: testDatabaseUrl(),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DISCORD_INGEST_PORT: '0',
    DISCORD_TOKEN: h.discord.token,
    DISCORD_API_URL: h.discord.apiUrl,
    ...env,
  });
  await app.get(DiscordIngestRunner).ready;
  return app;
}

/** A new text channel in the harness guild (unique per test). */
export function newChannel(h: Harness, name = 'chat') {
  return h.discord.createChannel(h.guild.id, { id: snowflake(), name });
}

/** A channel of another guild with one message of alice's: what a turn of `h.guild` must not touch. */
export function foreignMessage(h: Harness) {
  const other = h.discord.createGuild({ name: 'elsewhere' });
  h.discord.addMember(other.id, h.alice.id);
  const channel = h.discord.createChannel(other.id, { name: 'theirs' });
  const message = h.discord.postMessage({
    channelId: channel.id,
    authorId: h.alice.id,
    content: 'not yours',
  });
  return { channel, message };
}

/** Every envelope stored in a stream under `filter`, oldest first. */
export async function readStream<T = any>(
  m: Messaging,
  stream: string,
  filter: string,
  fromSeq?: number,
): Promise<Envelope<T>[]> {
  const consumer = await m.client.js.consumers.get(
    stream,
    fromSeq
      ? {
          filter_subjects: filter,
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: fromSeq,
        }
      : { filter_subjects: filter, deliver_policy: DeliverPolicy.All },
  );
  const out: Envelope<T>[] = [];
  while (true) {
    const msg = await consumer.next({ expires: 1000 });
    if (!msg) break;
    out.push(msg.json<Envelope<T>>());
    if (msg.info.pending === 0) break;
  }
  await consumer.delete().catch(() => undefined);
  return out;
}

export const discordEvents = (m: Messaging, guildId: string, channelId = '*') =>
  readStream(m, Streams.discordEvents, `${Subjects.discord.evtPrefix}.${guildId}.${channelId}.>`);

/** Waits until a channel's stream holds at least `n` `message.created`; returns them all. */
export const createdIn = (h: Harness, channelId: string, n: number) =>
  waitFor(
    async () => {
      const evts = (await discordEvents(h.nats, h.guild.id, channelId)).filter(
        (e) => e.type === 'message.created',
      );
      return evts.length >= n ? evts : null;
    },
    15_000,
    100,
    `${n} message.created in ${channelId}`,
  );

/** The next sequence of a stream: pass it to {@link readStream} to read only what follows. */
export async function nextSeq(m: Messaging, stream: string): Promise<number> {
  return (await m.client.jsm.streams.info(stream)).state.last_seq + 1;
}
