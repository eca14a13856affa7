import { Client, Events, GatewayIntentBits, type Message } from 'discord.js';
import { waitFor } from '@dirigent/testing';
import { FakeDiscord } from './fake-discord';

const intents = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.GuildMembers,
  GatewayIntentBits.GuildMessageTyping,
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
    client = new Client({ intents, rest: { api: discord.apiUrl } });
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
});
