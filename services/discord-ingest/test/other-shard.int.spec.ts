import type { INestApplication } from '@nestjs/common';
import { Subjects } from '@dirigent/contracts';
import { shardOf } from '@dirigent/discord-fake';
import { snowflake, waitFor } from '@dirigent/testing';
import { DiscordConnection } from '../adapters/discord-connection';
import { IngestShards } from '../adapters/ingest-shards';
import { CreateChannel } from '../application/create-channel';
import { CreateRole } from '../application/create-role';
import { CreateThread } from '../application/create-thread';
import { ListChannelMembers } from '../application/list-channel-members';
import { ListGuilds } from '../application/list-guilds';
import { startHarness, startReplica, type Harness } from './harness';

/**
 * Two ingest replicas, two shards: the replica holding shard 0 runs the command consumer, and
 * any replica may answer an action. Both must work for a guild of the other replica's shard,
 * which this one's gateway cache does not have.
 */
describe('discord-ingest actions and commands for a guild of another replica (local Discord)', () => {
  const SHARDS = 2;
  const env = { DISCORD_SHARD_COUNT: String(SHARDS), DISCORD_SHARD_LEASE_MS: '1200' };
  let h: Harness;
  let second: INestApplication | undefined;
  beforeAll(async () => {
    h = await startHarness(env);
    second = await startReplica(h, env);
  });
  afterAll(async () => {
    await second?.close();
    await h?.stop();
  });

  const owned = (app: INestApplication) => app.get(IngestShards).owned;
  const cached = (app: INestApplication, guildId: string) =>
    app.get(DiscordConnection).client!.guilds.cache.has(guildId);

  it('creates threads, channels and roles, lists guilds and members, and sends', async () => {
    await waitFor(() => owned(h.app).length === 1 && owned(second!).length === 1, 30_000);
    const [executor, holder] = owned(h.app)[0] === 0 ? [h.app, second!] : [second!, h.app];
    let guildId: string;
    do guildId = snowflake();
    while (shardOf(guildId, SHARDS) !== 1);
    const guild = h.discord.createGuild({ id: guildId, name: 'over-there' });
    h.discord.addMember(guild.id, h.alice.id, { manageChannels: true });
    const channel = h.discord.createChannel(guild.id, { id: snowflake(), name: 'far' });
    await waitFor(() => cached(holder, guild.id), 15_000);
    expect(cached(executor, guild.id)).toBe(false);
    const m = h.discord.postMessage({ channelId: channel.id, authorId: h.alice.id, content: 'x' });

    const { threadId } = await executor
      .get(CreateThread)
      .run({ guildId: guild.id, channelId: channel.id, messageId: m.id, name: 'remote' });
    expect(h.discord.channel(threadId)).toMatchObject({ parentId: channel.id, name: 'remote' });
    const standalone = await executor
      .get(CreateThread)
      .run({ guildId: guild.id, channelId: channel.id, name: 'side', autoArchiveMinutes: 60 });
    expect(h.discord.channel(standalone.threadId).autoArchiveMinutes).toBe(60);

    const { channelId } = await executor
      .get(CreateChannel)
      .run({ guildId: guild.id, name: 'mods', private: true, memberIds: [h.alice.id] });
    expect(h.discord.channel(channelId)).toMatchObject({ guildId: guild.id, name: 'mods' });
    const { roleId } = await executor
      .get(CreateRole)
      .run({ guildId: guild.id, name: 'helpers', color: 0x3366ff });
    expect(h.discord.guild(guild.id).roles.get(roleId)).toMatchObject({ color: 0x3366ff });
    expect(await executor.get(CreateRole).run({ guildId: guild.id, name: 'helpers' })).toEqual({
      roleId,
    });

    const { guilds } = await executor.get(ListGuilds).run({});
    expect(guilds.map((g) => g.guildId).sort()).toEqual([h.guild.id, guild.id].sort());
    const listed = guilds.find((g) => g.guildId === guild.id)!;
    expect(listed.channels).toEqual(
      expect.arrayContaining([
        { channelId: channel.id, name: 'far', private: false },
        { channelId, name: 'mods', private: true },
      ]),
    );
    const { members } = await executor
      .get(ListChannelMembers)
      .run({ guildId: guild.id, channelId: channel.id });
    expect(members.map((x) => x.userId)).toContain(h.alice.id);

    await h.nats.publishEvent(Subjects.discord.cmdSendMessage, 'send-message', {
      guildId: guild.id,
      channelId: channel.id,
      content: 'from the shard-0 holder',
      purpose: 'agent-reply',
    });
    await waitFor(
      () =>
        h.discord.channelMessages(channel.id).some((x) => x.content === 'from the shard-0 holder'),
      15_000,
    );
    expect(cached(executor, guild.id)).toBe(false);
  });
});
