import type { INestApplication } from '@nestjs/common';
import { Buckets, Subjects, type MemoryHit } from '@dirigent/contracts';
import { leaseHolders, Messaging } from '@dirigent/messaging';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, waitFor } from '@dirigent/testing';
import { ArchiveIndex } from '../adapters/archive-index';
import { MemoryService } from '../memory.module';
import { GuildPartitions } from '../partitions/guild-partitions';
import { MemoryHarness, memoryEnv } from './harness';

jest.setTimeout(120_000);

const PARTITIONS = 2;

/**
 * Two memory replicas in one process share the guild partitions by lease (as the
 * coordinator's channels): each holds only its partitions' guilds' indexes, a search that
 * reaches the other replica is answered by the holder, a guild pinned to a partition has
 * it to itself, and a killed replica's partition goes to the other.
 */
describe('memory replicas sharing guild partitions', () => {
  const big = snowflake();
  let h: MemoryHarness;
  const apps: INestApplication[] = [];

  const replica = async (id: string) => {
    const { app } = await startServiceApp(
      MemoryService,
      memoryEnv({
        DIRIGENT_MEMORY_PARTITIONS: String(PARTITIONS),
        DIRIGENT_MEMORY_PINNED_GUILDS: `${big}=0`,
        DIRIGENT_MEMORY_REPLICA_ID: id,
        DIRIGENT_MEMORY_LEASE_MS: '1000',
      }),
    );
    apps.push(app);
    return app;
  };
  const holders = () => leaseHolders(h.messaging, Buckets.memoryLeases, PARTITIONS);
  const search = (guildId: string, query: string) =>
    h.ok<{ hits: MemoryHit[] }>(Subjects.memory.search, { guildId, query, k: 5 });

  beforeAll(async () => {
    h = await MemoryHarness.connect();
  });
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    await h.messaging.client.jsm.streams.delete(`KV_${Buckets.memoryLeases}`).catch(() => 0);
    await h.stop();
  });

  it('holds each guild on one replica, answers it from every one, and hands it over on a kill', async () => {
    const a = await replica('mem-a');
    const b = await replica('mem-b');
    await waitFor(
      async () => (await holders()).sort().join() === 'mem-a,mem-b',
      30_000,
      50,
      'each replica to lease one partition',
    );
    const owner = (await holders())[0] === 'mem-a' ? a : b;
    const other = owner === a ? b : a;
    // The pinned guild has partition 0 alone: every other guild hashes to partition 1.
    const small = snowflake();
    const partitions = a.get(GuildPartitions);
    expect(partitions.partitionOf(big)).toBe(0);
    expect(
      Array.from({ length: 50 }, () => partitions.partitionOf(snowflake())).every((k) => k === 1),
    ).toBe(true);

    const guild = h.guild();
    Object.assign(guild, { guildId: big });
    const author = snowflake();
    await guild.say(snowflake(), author, 'the lighthouse keeper counted gulls');
    const smallGuild = h.guild();
    Object.assign(smallGuild, { guildId: small });
    await smallGuild.say(snowflake(), author, 'the baker sold rye loaves');
    await h.waitForCount(big, author, 1);
    await h.waitForCount(small, author, 1);

    // Searches land on either replica; the guild's index is held by its partition's only.
    for (let i = 0; i < 6; i++) {
      expect((await search(big, 'lighthouse gulls')).hits[0]?.text).toContain('lighthouse');
      expect((await search(small, 'rye loaves')).hits[0]?.text).toContain('rye');
    }
    await waitFor(() => owner.get(ArchiveIndex).state(big) === 'ready', 30_000, 50, 'big held');
    expect(other.get(ArchiveIndex).state(big)).toBe('absent');
    expect(owner.get(ArchiveIndex).state(small)).toBe('absent');
    expect(other.get(ArchiveIndex).state(small)).toBe('ready');

    // The owner is killed (its NATS connection gone): the other takes its partition.
    const survivor = other === a ? 'mem-a' : 'mem-b';
    await owner.get(Messaging).client.nc.close();
    await waitFor(
      async () => (await holders()).every((r) => r === survivor),
      30_000,
      50,
      'the survivor to lease both partitions',
    );
    expect((await search(big, 'lighthouse gulls')).hits[0]?.text).toContain('lighthouse');
    await waitFor(() => other.get(ArchiveIndex).state(big) === 'ready', 30_000, 50, 'big moved');
  });
});
