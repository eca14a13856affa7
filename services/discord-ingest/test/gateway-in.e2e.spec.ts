import {
  Subjects,
  type ChannelMembersResult,
  type CreateChannelRequest,
  type DiscordSelfResult,
  type GuildsResult,
} from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { DiscordConnection } from '../adapters/discord-connection';
import {
  createdIn as created,
  discordEvents,
  newChannel,
  startHarness,
  type Harness,
} from './harness';

describe('discord-ingest gateway in (real discord.js against the local Discord)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const createdIn = (channelId: string, n: number) => created(h, channelId, n);

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
      authorName: 'alice',
      mentions: [],
      audience: 'public',
      audienceKey: expect.stringMatching(/^public:[0-9a-f]{16}$/),
    });
  });

  it('names the author as the guild shows them, with mentions and the message replied to', async () => {
    const channel = newChannel(h);
    const dana = h.discord.createUser({ id: snowflake(), username: 'dana', globalName: 'Dana D.' });
    const eve = h.discord.createUser({ id: snowflake(), username: 'eve', globalName: 'Eve E.' });
    h.discord.addMember(h.guild.id, dana.id, { nick: 'Captain Dana' });
    h.discord.addMember(h.guild.id, eve.id);
    const first = h.discord.postMessage({ channelId: channel.id, authorId: eve.id, content: 'q?' });
    const reply = h.discord.postMessage({
      channelId: channel.id,
      authorId: dana.id,
      content: `<@${eve.id}> yes, and <@${h.bob.id}> <@${eve.id}>`,
      replyToMessageId: first.id,
    });
    const evts = await createdIn(channel.id, 2);
    expect(evts[0].data).toMatchObject({ authorName: 'Eve E.', mentions: [] });
    expect(evts[0].data.replyToMessageId).toBeUndefined();
    expect(evts[1].data).toMatchObject({
      messageId: reply.id,
      authorName: 'Captain Dana',
      replyToMessageId: first.id,
    });
    expect([...evts[1].data.mentions].sort()).toEqual([eve.id, h.bob.id].sort());
  });

  it('publishes reactions added and removed, unicode and custom', async () => {
    const channel = newChannel(h);
    const m = h.discord.postMessage({ channelId: channel.id, authorId: h.bob.id, content: 'vote' });
    await createdIn(channel.id, 1);
    const react = { channelId: channel.id, messageId: m.id, userId: h.alice.id };
    h.discord.react({ ...react, emoji: '👍' });
    h.discord.react({ ...react, emoji: 'blob:112233445566778899' });
    h.discord.unreact({ ...react, emoji: '👍' });
    h.discord.react({ ...react, emoji: '👍' });
    const evts = await waitFor(async () => {
      const all = (await discordEvents(h.nats, h.guild.id, channel.id)).filter((e) =>
        e.type.startsWith('reaction.'),
      );
      return all.length >= 4 ? all : null;
    }, 15_000);
    const base = {
      guildId: h.guild.id,
      channelId: channel.id,
      messageId: m.id,
      userId: h.alice.id,
    };
    expect(evts.map((e) => [e.type, e.data])).toEqual([
      ['reaction.added', { ...base, emoji: '👍' }],
      ['reaction.added', { ...base, emoji: 'blob:112233445566778899' }],
      ['reaction.removed', { ...base, emoji: '👍' }],
      ['reaction.added', { ...base, emoji: '👍' }],
    ]);
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

  it('publishes member.joined and member.left in a channel whose permissions change', async () => {
    const VIEW = String(1 << 10);
    const channel = h.discord.createChannel(h.guild.id, {
      id: snowflake(),
      name: 'closed',
      overwrites: [
        { id: h.guild.id, type: 0, allow: '0', deny: VIEW },
        { id: h.alice.id, type: 1, allow: VIEW, deny: '0' },
      ],
    });
    const client = h.app.get(DiscordConnection).client!;
    await waitFor(() => client.channels.cache.has(channel.id));
    h.discord.setOverwrites(channel.id, [
      { id: h.guild.id, type: 0, allow: '0', deny: VIEW },
      { id: h.bob.id, type: 1, allow: VIEW, deny: '0' },
    ]);
    const evts = await waitFor(async () => {
      const all = (await discordEvents(h.nats, h.guild.id, channel.id)).filter((e) =>
        e.type.startsWith('member.'),
      );
      return all.length >= 2 ? all : null;
    }, 15_000);
    expect(evts.map((e) => [e.type, e.data.userId]).sort()).toEqual(
      [
        ['member.joined', h.bob.id],
        ['member.left', h.alice.id],
      ].sort(),
    );
    expect(evts[0].data).toMatchObject({
      guildId: h.guild.id,
      channelId: channel.id,
      isBot: false,
    });
    // Given back: a new event, not one de-duplicated as a replay of the first.
    h.discord.setOverwrites(channel.id, [
      { id: h.guild.id, type: 0, allow: '0', deny: VIEW },
      { id: h.alice.id, type: 1, allow: VIEW, deny: '0' },
      { id: h.bob.id, type: 1, allow: VIEW, deny: '0' },
    ]);
    await waitFor(async () => {
      const joined = (await discordEvents(h.nats, h.guild.id, channel.id)).filter(
        (e) => e.type === 'member.joined' && e.data.userId === h.alice.id,
      );
      return joined.length === 1;
    }, 15_000);
  });

  it('publishes member.joined and member.left in a thread whose members change', async () => {
    const parent = newChannel(h, 'with-thread');
    const thread = h.discord.createThread(parent.id, 'side talk');
    const client = h.app.get(DiscordConnection).client!;
    await waitFor(() => client.channels.cache.has(thread.id));
    h.discord.updateThreadMembers(thread.id, { add: [h.otherBot.id, h.bob.id] });
    await waitFor(async () => {
      const all = await discordEvents(h.nats, h.guild.id, thread.id);
      return all.filter((e) => e.type === 'member.joined').length === 2;
    }, 15_000);
    h.discord.updateThreadMembers(thread.id, { remove: [h.bob.id] });
    const evts = await waitFor(async () => {
      const all = await discordEvents(h.nats, h.guild.id, thread.id);
      return all.some((e) => e.type === 'member.left') ? all : null;
    }, 15_000);
    expect(evts.map((e) => [e.type, e.data.userId, e.data.isBot])).toEqual([
      ['member.joined', h.otherBot.id, true],
      ['member.joined', h.bob.id, false],
      ['member.left', h.bob.id, false],
    ]);
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

  /** The `channel-members` query over NATS: the reply's data, or its error thrown. */
  const members = async (channelId: string) => {
    const reply = await h.nats.request<ChannelMembersResult>(Subjects.discord.queryChannelMembers, {
      guildId: h.guild.id,
      channelId,
    });
    if (!reply.ok) throw Object.assign(new Error(reply.error.message), reply.error);
    return reply.data.members;
  };
  /** The `create-channel` RPC over NATS. */
  const createChannel = async (req: Omit<CreateChannelRequest, 'guildId'>) => {
    const reply = await h.nats.request<{ channelId: string }>(Subjects.discord.rpcCreateChannel, {
      guildId: h.guild.id,
      ...req,
    });
    if (!reply.ok) throw new Error(`create-channel: ${JSON.stringify(reply.error)}`);
    return reply.data;
  };

  it('answers channel-members from the cache, only those who can see the channel', async () => {
    const channel = newChannel(h);
    const listed = await members(channel.id);
    expect(listed.map((m) => m.userId)).toEqual(
      expect.arrayContaining([h.alice.id, h.bob.id, h.otherBot.id, h.discord.bot.id]),
    );
    expect(listed.find((m) => m.userId === h.otherBot.id)?.isBot).toBe(true);
    await expect(members(snowflake())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const bad = await h.nats.request(Subjects.discord.queryChannelMembers, { guildId: 'x' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('answers query.self over NATS with the bot user it logged in as', async () => {
    const reply = await h.nats.request<DiscordSelfResult>(Subjects.discord.querySelf, {});
    expect(reply).toEqual({ ok: true, data: { userId: h.discord.bot.id } });
  });

  it('answers the guilds query over NATS with the text channels, private ones marked', async () => {
    const open = newChannel(h, 'open');
    const { channelId: closed } = await createChannel({
      name: 'closed',
      private: true,
      memberIds: [h.alice.id],
    });
    await waitFor(() => h.app.get(DiscordConnection).client!.channels.cache.has(closed));
    const reply = await h.nats.request<GuildsResult>(Subjects.discord.queryGuilds, {
      guildId: h.guild.id,
    });
    if (!reply.ok) throw new Error(reply.error.message);
    const [guild] = reply.data.guilds;
    expect(guild).toMatchObject({ guildId: h.guild.id, name: 'e2e' });
    expect(guild.channels).toEqual(
      expect.arrayContaining([
        { channelId: open.id, name: 'open', private: false },
        { channelId: closed, name: 'closed', private: true },
      ]),
    );
  });

  it('lists members over REST when the cache is short', async () => {
    const channel = newChannel(h);
    const guild = h.app.get(DiscordConnection).client!.guilds.cache.get(h.guild.id)!;
    guild.members.cache.delete(h.bob.id);
    expect((await members(channel.id)).map((m) => m.userId)).toContain(h.bob.id);
    expect(
      h.discord.requests.some(
        (r) => r.method === 'GET' && r.path === `/guilds/${h.guild.id}/members`,
      ),
    ).toBe(true);
  });

  it('creates a private channel visible to its members and the moderator only', async () => {
    const { channelId } = await createChannel({
      name: 'private-room',
      private: true,
      memberIds: [h.bob.id],
    });
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
    const listed = await members(channelId);
    expect(listed.map((m) => m.userId).sort()).toEqual([h.bob.id, h.discord.bot.id].sort());
  });

  it('creates a public channel without overwrites', async () => {
    const { channelId } = await createChannel({ name: 'open', private: false, memberIds: [] });
    expect(h.discord.channels.get(channelId)?.overwrites).toEqual([]);
    expect(h.discord.canView(channelId, h.otherBot.id)).toBe(true);
  });
});
