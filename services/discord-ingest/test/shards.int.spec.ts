import type { INestApplication } from '@nestjs/common';
import { shardOf } from '@dirigent/discord-fake';
import { snowflake, waitFor } from '@dirigent/testing';
import { DiscordConnection } from '../adapters/discord-connection';
import { GatewayIngest } from '../adapters/gateway-ingest';
import { IngestShards } from '../adapters/ingest-shards';
import { discordEvents, startHarness, startReplica, type Harness } from './harness';

/**
 * The sharded gateway: the bot's shards are leased to the replicas, each connects the
 * shards it holds (discord.js's own sharding), the local Discord routes each guild to shard
 * `(guildId >> 22) % count`, and every message is published once, by the replica whose
 * shard holds its guild. A replica that joins gets its share handed over; one that leaves
 * hands its shards back.
 */
describe('discord-ingest shards (real discord.js against the local Discord)', () => {
  const SHARDS = 4;
  let h: Harness;
  let second: INestApplication | undefined;
  beforeAll(async () => {
    h = await startHarness({ DISCORD_SHARD_COUNT: String(SHARDS), DISCORD_SHARD_LEASE_MS: '1200' });
  });
  afterAll(async () => {
    await second?.close();
    await h?.stop();
  });

  const replica = (env: Record<string, string>) => startReplica(h, env);

  const owned = (app: INestApplication) => app.get(IngestShards).owned;

  it('splits the shards between two replicas by lease and publishes each message once', async () => {
    const guilds = Array.from({ length: 12 }, (_, i) =>
      h.discord.createGuild({ id: snowflake(), name: `sharded-${i}` }),
    );
    await waitFor(() => owned(h.app).length === SHARDS, 30_000);
    const sessions = () =>
      new Map([...h.discord.gateway.opened].map(([k, c]) => [k, c.identifies + c.resumes]));
    const opened = sessions();
    second = await replica({ DISCORD_SHARD_COUNT: String(SHARDS), DISCORD_SHARD_LEASE_MS: '1200' });
    const apps = [h.app, second];
    await waitFor(() => owned(h.app).length === 2 && owned(second!).length === 2, 30_000);
    expect([...owned(h.app), ...owned(second)].sort()).toEqual([0, 1, 2, 3]);
    // The shards the first replica kept kept their gateway sessions: no IDENTIFY, no RESUME.
    const kept = owned(h.app);
    for (const k of kept) expect(sessions().get(k)).toBe(opened.get(k));
    for (const k of owned(second)) expect(sessions().get(k)).toBe(opened.get(k)! + 1);
    const owner = (guildId: string) => (owned(h.app).includes(shardOf(guildId, SHARDS)) ? 0 : 1);
    const cached = (app: INestApplication, guildId: string) =>
      app.get(DiscordConnection).client!.guilds.cache.has(guildId);
    await waitFor(() => guilds.every((g) => cached(apps[owner(g.id)], g.id)), 30_000);
    for (const g of guilds) expect(cached(apps[1 - owner(g.id)], g.id)).toBe(false);

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

    // The second replica leaves: its shards are handed back and their guilds cached again.
    await second.close();
    second = undefined;
    await waitFor(() => owned(h.app).length === SHARDS, 30_000);
    await waitFor(() => guilds.every((g) => cached(h.app, g.id)), 30_000);
    for (const k of kept) expect(sessions().get(k)).toBe(opened.get(k));
  });

  it('connects as many shards as GET /gateway/bot recommends with DISCORD_SHARD_COUNT=auto', async () => {
    await second?.close();
    second = undefined;
    h.discord.recommendedShards = 3;
    const identifies = h.discord.gateway.identifies;
    await h.stopApp();
    const auto = await replica({ DISCORD_SHARD_COUNT: 'auto' });
    try {
      await waitFor(() => owned(auto).length === 3, 30_000);
      expect(h.discord.gateway.identifies - identifies).toBe(3);
      const client = auto.get(DiscordConnection).client!;
      expect(client.options.shardCount).toBe(3);
      for (const g of h.discord.guilds.values()) expect(client.guilds.cache.has(g.id)).toBe(true);
    } finally {
      await auto.close();
    }
  });
});
