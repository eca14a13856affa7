import type { INestApplication } from '@nestjs/common';
import { shardOf } from '@dirigent/discord-fake';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import { DiscordIngestService } from '../discord-ingest.module';
import { DiscordConnection } from '../adapters/discord-connection';
import { DiscordIngestRunner } from '../adapters/discord-ingest.runner';
import { GatewayIngest } from '../adapters/gateway-ingest';
import { discordEvents, startHarness, type Harness } from './harness';

/**
 * The sharded gateway: replicas each connect their share of the bot's shards (discord.js's
 * own sharding), the local Discord routes each guild to shard `(guildId >> 22) % count`, and
 * every message is published once, by the replica whose shard holds its guild.
 */
describe('discord-ingest shards (real discord.js against the local Discord)', () => {
  const SHARDS = 4;
  let h: Harness;
  let second: INestApplication | undefined;
  beforeAll(async () => {
    h = await startHarness({ DISCORD_SHARD_COUNT: String(SHARDS), DISCORD_SHARD_IDS: '0,1' });
  });
  afterAll(async () => {
    await second?.close();
    await h?.stop();
  });

  const replica = async (env: Record<string, string>) => {
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
  };

  it('splits the guilds by shard between two replicas and publishes each message once', async () => {
    second = await replica({ DISCORD_SHARD_COUNT: String(SHARDS), DISCORD_SHARD_IDS: '2,3' });
    const apps = [h.app, second];
    const guilds = Array.from({ length: 12 }, (_, i) =>
      h.discord.createGuild({ id: snowflake(), name: `sharded-${i}` }),
    );
    const owner = (guildId: string) => (shardOf(guildId, SHARDS) < 2 ? 0 : 1);
    const cached = (app: INestApplication, guildId: string) =>
      app.get(DiscordConnection).client!.guilds.cache.has(guildId);
    await waitFor(() => guilds.every((g) => cached(apps[owner(g.id)], g.id)), 30_000);
    for (const g of guilds) expect(cached(apps[1 - owner(g.id)], g.id)).toBe(false);
    expect([...h.discord.gateway.shardSessions.keys()].sort()).toEqual([0, 1, 2, 3]);

    const before = apps.map((a) => a.get(GatewayIngest).published);
    const channels = guilds.map((g) => {
      h.discord.addMember(g.id, h.alice.id);
      return h.discord.createChannel(g.id, { id: snowflake(), name: 'chat' });
    });
    const members = apps.map((a) => a.get(GatewayIngest).published);
    for (const c of channels) {
      h.discord.postMessage({ channelId: c.id, authorId: h.alice.id, content: `hi ${c.id}` });
    }
    const created = async (guildId: string) =>
      (await discordEvents(h.nats, guildId)).filter((e) => e.type === 'message.created');
    await waitFor(async () => {
      for (const g of guilds) if ((await created(g.id)).length !== 1) return false;
      return true;
    }, 30_000);
    await waitFor(
      () =>
        apps.reduce((n, a, i) => n + a.get(GatewayIngest).published - members[i], 0) ===
        channels.length,
      30_000,
    );
    const perReplica = apps.map((a, i) => a.get(GatewayIngest).published - members[i]);
    const expected = [0, 1].map((r) => guilds.filter((g) => owner(g.id) === r).length);
    expect(perReplica).toEqual(expected);
    expect(before.every((n, i) => members[i] >= n)).toBe(true);
  });

  it('connects as many shards as GET /gateway/bot recommends with DISCORD_SHARD_COUNT=auto', async () => {
    await second?.close();
    second = undefined;
    h.discord.recommendedShards = 3;
    const identifies = h.discord.gateway.identifies;
    const auto = await replica({ DISCORD_SHARD_COUNT: 'auto' });
    try {
      expect(h.discord.gateway.identifies - identifies).toBe(3);
      const client = auto.get(DiscordConnection).client!;
      expect(client.options.shardCount).toBe(3);
      for (const g of h.discord.guilds.values()) expect(client.guilds.cache.has(g.id)).toBe(true);
    } finally {
      await auto.close();
    }
  });
});
