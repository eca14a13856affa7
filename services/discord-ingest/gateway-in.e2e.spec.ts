import './testing/fresh-orm-metadata';
import { ChannelMembersQuery, CreateChannelRequest, Subjects } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { DiscordConnection } from './discord-connection';
import { DiscordRpc } from './discord-rpc';
import { discordEvents, newChannel, startHarness, type Harness } from './testing/harness';

describe('discord-ingest gateway in (real discord.js against the local Discord)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const createdIn = async (channelId: string, n: number) =>
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

  it('publishes a human message as message.created with the right fields', async () => {
    const channel = newChannel(h);
    const m = h.discord.postMessage({
      channelId: channel.id,
      authorId: h.alice.id,
      content: 'hello',
    });
    const [evt] = await createdIn(channel.id, 1);
    expect(evt.id).toBe(`discord:msg:${m.id}`);
    expect(evt.source).toBe('discord-ingest');
    expect(evt.data).toEqual({
      guildId: h.guild.id,
      channelId: channel.id,
      messageId: m.id,
      authorId: h.alice.id,
      authorIsBot: false,
      content: 'hello',
      createdAt: m.createdAt,
    });
  });

  it('publishes bot and webhook messages, marked as such', async () => {
    const channel = newChannel(h);
    h.discord.postMessage({ channelId: channel.id, authorId: h.otherBot.id, content: 'beep' });
    const hook = h.discord.createWebhook(channel.id, 'ci', h.alice.id);
    h.discord.postWebhookMessage({ webhookId: hook.id, content: 'from ci', username: 'CI' });
    const evts = await createdIn(channel.id, 2);
    expect(evts.map((e) => e.data)).toEqual([
      expect.objectContaining({ authorId: h.otherBot.id, authorIsBot: true, content: 'beep' }),
      expect.objectContaining({ authorIsBot: true, webhookId: hook.id, content: 'from ci' }),
    ]);
    expect(evts[0].data.webhookId).toBeUndefined();
  });

  it('publishes deletions, typing and members joining and leaving', async () => {
    const channel = newChannel(h);
    const m = h.discord.postMessage({ channelId: channel.id, authorId: h.bob.id, content: 'oops' });
    await createdIn(channel.id, 1);
    h.discord.deleteMessage(channel.id, m.id);
    h.discord.startTyping(channel.id, h.bob.id);
    const carol = h.discord.createUser({ id: snowflake(), username: 'carol' });
    h.discord.addMember(h.guild.id, carol.id);
    await waitFor(async () => {
      const types = (await discordEvents(h.nats, h.guild.id, channel.id)).map((e) => e.type);
      return types.includes('member.joined');
    }, 15_000);
    h.discord.removeMember(h.guild.id, carol.id);
    const evts = await waitFor(async () => {
      const all = await discordEvents(h.nats, h.guild.id, channel.id);
      return all.some((e) => e.type === 'member.left') ? all : null;
    }, 15_000);
    const byType = Object.fromEntries(evts.map((e) => [e.type, e.data]));
    expect(byType['message.deleted']).toEqual({
      guildId: h.guild.id,
      channelId: channel.id,
      messageId: m.id,
    });
    expect(byType['typing.started']).toMatchObject({ channelId: channel.id, userId: h.bob.id });
    expect(byType['member.joined']).toEqual({
      guildId: h.guild.id,
      channelId: channel.id,
      userId: carol.id,
      isBot: false,
    });
    expect(byType['member.left']).toMatchObject({ userId: carol.id });
  });

  it.each([
    ['resumed (the gateway replays)', true],
    ['re-identified (caught up over REST)', false],
  ])(
    'loses nothing and publishes nothing twice when the gateway drops: %s',
    async (_, resumable) => {
      const channel = newChannel(h);
      const say = (content: string) =>
        h.discord.postMessage({ channelId: channel.id, authorId: h.alice.id, content });
      say('one');
      say('two');
      await createdIn(channel.id, 2);
      const identifies = h.discord.gateway.identifies;
      const resumes = h.discord.gateway.resumes;
      h.discord.dropGateway({ resumable });
      say('three (while away)');
      h.discord.postMessage({ channelId: channel.id, authorId: h.otherBot.id, content: 'four' });
      await waitFor(() => h.discord.gateway.readySessions === 1, 15_000, 50, 'reconnect');
      say('five');
      const evts = await createdIn(channel.id, 5);
      // Give a duplicate, if any, time to land before counting.
      await new Promise((r) => setTimeout(r, 500));
      const all = (await discordEvents(h.nats, h.guild.id, channel.id)).filter(
        (e) => e.type === 'message.created',
      );
      expect(all.map((e) => e.data.content)).toEqual([
        'one',
        'two',
        'three (while away)',
        'four',
        'five',
      ]);
      expect(new Set(all.map((e) => e.id)).size).toBe(5);
      expect(evts).toHaveLength(5);
      if (resumable) expect(h.discord.gateway.resumes).toBe(resumes + 1);
      else expect(h.discord.gateway.identifies).toBe(identifies + 1);
    },
  );

  // The RPC handlers are called directly: on the shared NATS, another suite's stand-in
  // ingest may be serving the same subjects at the same moment. The NATS path itself
  // (validation, reply envelope) is the messaging library's, tested there and below.
  const rpc = () => h.app.get(DiscordRpc);

  it('answers channel-members from the cache, only those who can see the channel', async () => {
    const channel = newChannel(h);
    const { members } = await rpc().channelMembers(
      ChannelMembersQuery.create({ guildId: h.guild.id, channelId: channel.id }),
    );
    expect(members.map((m) => m.userId)).toEqual(
      expect.arrayContaining([h.alice.id, h.bob.id, h.otherBot.id, h.discord.bot.id]),
    );
    expect(members.find((m) => m.userId === h.otherBot.id)?.isBot).toBe(true);
    await expect(
      rpc().channelMembers(
        ChannelMembersQuery.create({ guildId: h.guild.id, channelId: snowflake() }),
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const bad = await h.nats.request(Subjects.discord.queryChannelMembers, { guildId: 'x' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('lists members over REST when the cache is short', async () => {
    const channel = newChannel(h);
    const guild = h.app.get(DiscordConnection).client!.guilds.cache.get(h.guild.id)!;
    guild.members.cache.delete(h.bob.id);
    const { members } = await rpc().channelMembers(
      ChannelMembersQuery.create({ guildId: h.guild.id, channelId: channel.id }),
    );
    expect(members.map((m) => m.userId)).toContain(h.bob.id);
    expect(
      h.discord.requests.some(
        (r) => r.method === 'GET' && r.path === `/guilds/${h.guild.id}/members`,
      ),
    ).toBe(true);
  });

  it('creates a private channel visible to its members and the moderator only', async () => {
    const { channelId } = await rpc().createChannel(
      CreateChannelRequest.create({
        guildId: h.guild.id,
        name: 'private-room',
        private: true,
        memberIds: [h.bob.id],
      }),
    );
    const created = h.discord.channels.get(channelId)!;
    expect(created.name).toBe('private-room');
    expect(h.discord.canView(created.id, h.bob.id)).toBe(true);
    expect(h.discord.canView(created.id, h.discord.bot.id)).toBe(true);
    expect(h.discord.canView(created.id, h.otherBot.id)).toBe(false);
    // The moderator is the bot itself here (no DIRIGENT_MODERATOR_USER_ID).
    expect(created.overwrites.map((o) => o.id).sort()).toEqual(
      [h.guild.id, h.discord.bot.id, h.bob.id].sort(),
    );
    await waitFor(() => h.app.get(DiscordConnection).client!.channels.cache.has(channelId));
    const { members } = await rpc().channelMembers(
      ChannelMembersQuery.create({ guildId: h.guild.id, channelId }),
    );
    expect(members.map((m) => m.userId).sort()).toEqual([h.bob.id, h.discord.bot.id].sort());
  });

  it('creates a public channel without overwrites', async () => {
    const { channelId } = await rpc().createChannel(
      CreateChannelRequest.create({
        guildId: h.guild.id,
        name: 'open',
        private: false,
        memberIds: [],
      }),
    );
    expect(h.discord.channels.get(channelId)?.overwrites).toEqual([]);
    expect(h.discord.canView(channelId, h.otherBot.id)).toBe(true);
  });
});
