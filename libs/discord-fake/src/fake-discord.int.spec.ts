import {
  Client,
  Events,
  GatewayIntentBits,
  Partials,
  type Message,
  type MessageReaction,
  type PartialMessageReaction,
  type Typing,
} from 'discord.js';
import { waitFor } from '@dirigent/testing';
import { FakeDiscord } from './fake-discord';

const intents = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.GuildMembers,
  GatewayIntentBits.GuildMessageTyping,
  GatewayIntentBits.GuildMessageReactions,
];

describe('FakeDiscord with the real discord.js client', () => {
  let discord: FakeDiscord;
  let client: Client;

  beforeEach(async () => {
    discord = await FakeDiscord.start({ token: 'tok' });
  });
  afterEach(async () => {
    await client?.destroy();
    await discord.stop();
  });

  async function login() {
    client = new Client({
      intents,
      partials: [Partials.Message, Partials.Reaction, Partials.User],
      rest: { api: discord.apiUrl },
    });
    const ready = new Promise((r) => client.once(Events.ClientReady, r));
    await client.login('tok');
    await ready;
  }

  it('logs in, sees guilds, channels and members, and exchanges messages', async () => {
    const guild = discord.createGuild({ name: 'g' });
    const general = discord.createChannel(guild.id, { name: 'general' });
    const alice = discord.createUser({ username: 'alice' });
    discord.addMember(guild.id, alice.id);
    await login();
    expect(client.user?.id).toBe(discord.bot.id);
    const g = client.guilds.cache.get(guild.id)!;
    expect(g.channels.cache.get(general.id)?.name).toBe('general');
    expect(g.members.cache.has(alice.id)).toBe(true);

    const seen: Message[] = [];
    client.on(Events.MessageCreate, (m) => void seen.push(m));
    discord.postMessage({ channelId: general.id, authorId: alice.id, content: 'hello' });
    await waitFor(() => seen.length === 1);
    expect(seen[0].content).toBe('hello');
    expect(seen[0].author.id).toBe(alice.id);

    const channel = g.channels.cache.get(general.id)!;
    if (!channel.isTextBased()) throw new Error('not text');
    const sent = await channel.send('from the bot');
    expect(discord.channelMessages(general.id).map((m) => m.content)).toEqual([
      'hello',
      'from the bot',
    ]);
    await sent.delete();
    expect(discord.channelMessages(general.id)).toHaveLength(1);
    const after = await channel.messages.fetch({ after: '0', limit: 100 });
    expect(after.size).toBe(1);
  });

  it('resumes after a dropped connection and replays what was missed', async () => {
    const guild = discord.createGuild();
    const general = discord.createChannel(guild.id, { name: 'general' });
    const alice = discord.createUser({ username: 'alice' });
    discord.addMember(guild.id, alice.id);
    await login();
    const seen: string[] = [];
    client.on(Events.MessageCreate, (m) => void seen.push(m.content));
    const resumed = new Promise((r) => client.once(Events.ShardResume, r));
    discord.dropGateway();
    discord.postMessage({ channelId: general.id, authorId: alice.id, content: 'while away' });
    await resumed;
    await waitFor(() => seen.includes('while away'));
    expect(discord.gateway.resumes).toBe(1);
  });

  it('answers scripted 429s through discord.js rate-limit handling', async () => {
    const guild = discord.createGuild();
    const general = discord.createChannel(guild.id, { name: 'general' });
    await login();
    discord.failNext({
      method: 'POST',
      path: `/channels/${general.id}/messages`,
      status: 429,
      retryAfter: 0.3,
    });
    const channel = client.channels.cache.get(general.id)!;
    if (!channel.isSendable()) throw new Error('not sendable');
    const started = Date.now();
    await channel.send('after the limit');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(discord.channelMessages(general.id)).toHaveLength(1);
  });

  it('is driven over HTTP by its control API', async () => {
    const base = discord.apiUrl.replace(/\/api$/, '');
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}/_fake${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (res.status === 204 ? null : await res.json()) as any };
    };
    const guild = (await call('POST', '/guilds', { name: 'pg' })).body;
    const user = (await call('POST', '/users', { username: 'carol' })).body;
    expect((await call('POST', `/guilds/${guild.id}/members`, { userId: user.id })).status).toBe(
      201,
    );
    const channel = (await call('POST', `/guilds/${guild.id}/channels`, { name: 'general' })).body;
    await login();
    const seen: string[] = [];
    client.on(Events.MessageCreate, (m) => void seen.push(m.content));
    const posted = await call('POST', `/channels/${channel.id}/messages`, {
      authorId: user.id,
      content: 'via http',
    });
    expect(posted.status).toBe(201);
    await waitFor(() => seen.includes('via http'));
    expect((await call('GET', `/channels/${channel.id}/messages`)).body).toHaveLength(1);
    const state = (await call('GET', '/state')).body;
    expect(state.gateway.connected).toBe(1);
    expect(state.guilds[0].channels[0].name).toBe('general');
    expect((await call('POST', '/channels/1/messages', { content: 'x' })).status).toBe(400);
    expect(
      (await call('POST', '/channels/1/messages', { authorId: user.id, content: 'x' })).status,
    ).toBe(404);
    expect((await call('GET', '/nope')).status).toBe(404);
  });

  it('carries mentions, replies and nicks, and speaks reactions and typing both ways', async () => {
    const guild = discord.createGuild();
    const general = discord.createChannel(guild.id, { name: 'general' });
    const alice = discord.createUser({ username: 'alice', globalName: 'Alice A.' });
    const bob = discord.createUser({ username: 'bob' });
    discord.addMember(guild.id, alice.id, { nick: 'Ali' });
    discord.addMember(guild.id, bob.id);
    await login();
    const seen: Message[] = [];
    client.on(Events.MessageCreate, (m) => void seen.push(m));
    const first = discord.postMessage({ channelId: general.id, authorId: bob.id, content: 'hi' });
    discord.postMessage({
      channelId: general.id,
      authorId: alice.id,
      content: `<@${bob.id}> and <@!${discord.bot.id}> and <@1>`,
      replyToMessageId: first.id,
    });
    await waitFor(() => seen.length === 2);
    const reply = seen[1];
    expect([...reply.mentions.users.keys()].sort()).toEqual([bob.id, discord.bot.id].sort());
    expect(reply.reference?.messageId).toBe(first.id);
    expect(reply.member?.nickname).toBe('Ali');
    expect(reply.member?.displayName).toBe('Ali');

    const reactions: { kind: string; emoji: string | null; userId: string }[] = [];
    const note =
      (kind: string) => (r: MessageReaction | PartialMessageReaction, u: { id: string }) =>
        void reactions.push({ kind, emoji: r.emoji.identifier, userId: u.id });
    client.on(Events.MessageReactionAdd, note('add'));
    client.on(Events.MessageReactionRemove, note('remove'));
    discord.react({ channelId: general.id, messageId: first.id, userId: alice.id, emoji: '👍' });
    discord.react({ channelId: general.id, messageId: first.id, userId: alice.id, emoji: '👍' });
    const channel = client.channels.cache.get(general.id)!;
    if (!channel.isTextBased()) throw new Error('not text');
    await channel.messages.react(first.id, 'party:123456789012345678');
    await channel.messages.react(first.id, '🎉');
    await waitFor(() => reactions.length === 3);
    discord.unreact({ channelId: general.id, messageId: first.id, userId: alice.id, emoji: '👍' });
    await waitFor(() => reactions.length === 4);
    expect(reactions).toEqual([
      { kind: 'add', emoji: encodeURIComponent('👍'), userId: alice.id },
      { kind: 'add', emoji: 'party:123456789012345678', userId: discord.bot.id },
      { kind: 'add', emoji: encodeURIComponent('🎉'), userId: discord.bot.id },
      { kind: 'remove', emoji: encodeURIComponent('👍'), userId: alice.id },
    ]);
    const stored = discord.channelMessages(general.id)[0].reactions;
    expect(stored.map((r) => r.emoji)).toEqual(['party:123456789012345678', '🎉']);
    const fetched = await channel.messages.fetch({ message: first.id, force: true });
    expect(fetched.reactions.cache.get('🎉')?.me).toBe(true);
    await expect(channel.messages.react(first.id, 'smile')).rejects.toThrow(/Unknown Emoji/);

    const typing: Typing[] = [];
    client.on(Events.TypingStart, (t) => void typing.push(t));
    if (!channel.isSendable()) throw new Error('not sendable');
    await channel.sendTyping();
    discord.startTyping(general.id, bob.id);
    await waitFor(() => typing.length === 2);
    expect(typing.map((t) => t.user.id)).toEqual([discord.bot.id, bob.id]);
  });
});
