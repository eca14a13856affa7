import type { ChannelUpdated, Envelope, MessageCreated } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { DiscordConnection } from '../adapters/discord-connection';
import { createdIn, discordEvents, newChannel, startHarness, type Harness } from './harness';

const VIEW = String(1 << 10);

/**
 * Audience from the channel's overwrites, through the real discord.js client against the
 * local Discord: a message says whether `@everyone` may see its channel (a thread its
 * parent's), and a change of overwrites that changes the audience is `channel.updated`.
 */
describe('discord-ingest audience (real discord.js against the local Discord)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const client = () => h.app.get(DiscordConnection).client!;
  const created = async (channelId: string, n: number) =>
    (await createdIn(h, channelId, n)) as Envelope<MessageCreated>[];
  const updates = async (channelId: string) =>
    (await discordEvents(h.nats, h.guild.id, channelId)).filter(
      (e) => e.type === 'channel.updated',
    ) as Envelope<ChannelUpdated>[];

  it('marks a message public, private, or as its thread parent’s', async () => {
    const open = newChannel(h, 'open');
    const closed = h.discord.createChannel(h.guild.id, {
      id: snowflake(),
      name: 'closed',
      overwrites: [
        { id: h.guild.id, type: 0, allow: '0', deny: VIEW },
        { id: h.alice.id, type: 1, allow: VIEW, deny: '0' },
      ],
    });
    const thread = h.discord.createThread(closed.id, 'inner');
    await waitFor(() => client().channels.cache.has(thread.id), 15_000);
    h.discord.postMessage({ channelId: open.id, authorId: h.alice.id, content: 'hi all' });
    h.discord.postMessage({ channelId: closed.id, authorId: h.alice.id, content: 'just us' });
    h.discord.postMessage({ channelId: thread.id, authorId: h.alice.id, content: 'deeper' });
    const [inOpen] = await created(open.id, 1);
    const [inClosed] = await created(closed.id, 1);
    const [inThread] = await created(thread.id, 1);
    expect(inOpen.data).toMatchObject({ audience: 'public' });
    expect(inOpen.data.parentChannelId).toBeUndefined();
    expect(inClosed.data).toMatchObject({ audience: 'private' });
    expect(inThread.data).toMatchObject({
      audience: 'private',
      audienceKey: inClosed.data.audienceKey,
      parentChannelId: closed.id,
    });
    expect(inOpen.data.audienceKey).not.toBe(inClosed.data.audienceKey);
  });

  it('publishes channel.updated when the overwrites change the audience, and again when undone', async () => {
    const channel = newChannel(h, 'soon-private');
    const thread = h.discord.createThread(channel.id, 'side');
    await waitFor(() => client().channels.cache.has(thread.id), 15_000);
    h.discord.setOverwrites(channel.id, [
      { id: h.guild.id, type: 0, allow: '0', deny: VIEW },
      { id: h.bob.id, type: 1, allow: VIEW, deny: '0' },
    ]);
    const [closed] = await waitFor(async () => {
      const u = await updates(channel.id);
      return u.length ? u : null;
    }, 15_000);
    expect(closed.data).toMatchObject({
      guildId: h.guild.id,
      channelId: channel.id,
      name: 'soon-private',
      audience: 'private',
    });
    // Its thread goes with it.
    const [threadClosed] = await waitFor(async () => {
      const u = await updates(thread.id);
      return u.length ? u : null;
    }, 15_000);
    expect(threadClosed.data).toMatchObject({ audience: 'private', parentChannelId: channel.id });
    // A message now says so too.
    h.discord.postMessage({ channelId: channel.id, authorId: h.bob.id, content: 'quiet now' });
    const [msg] = await created(channel.id, 1);
    expect(msg.data).toMatchObject({ audience: 'private', audienceKey: closed.data.audienceKey });
    // Opened again, and closed again: each a new event (not de-duplicated as a replay).
    h.discord.setOverwrites(channel.id, []);
    await waitFor(async () => (await updates(channel.id)).length === 2, 15_000);
    h.discord.setOverwrites(channel.id, [
      { id: h.guild.id, type: 0, allow: '0', deny: VIEW },
      { id: h.bob.id, type: 1, allow: VIEW, deny: '0' },
    ]);
    await waitFor(async () => (await updates(channel.id)).length === 3, 15_000);
    expect((await updates(channel.id)).map((u) => u.data.audience)).toEqual([
      'private',
      'public',
      'private',
    ]);
    // Another member's overwrite that leaves @everyone out still: a new key, same audience.
    h.discord.setOverwrites(channel.id, [
      { id: h.guild.id, type: 0, allow: '0', deny: VIEW },
      { id: h.alice.id, type: 1, allow: VIEW, deny: '0' },
    ]);
    const four = await waitFor(async () => {
      const u = await updates(channel.id);
      return u.length === 4 ? u : null;
    }, 15_000);
    expect(four[3].data.audience).toBe('private');
    expect(four[3].data.audienceKey).not.toBe(four[2].data.audienceKey);
  });

  it('reports every channel’s audience when it connects again', async () => {
    const channel = h.discord.createChannel(h.guild.id, {
      id: snowflake(),
      name: 'made-private-while-away',
    });
    await waitFor(() => client().channels.cache.has(channel.id), 15_000);
    await h.stopApp();
    h.discord.setOverwrites(channel.id, [{ id: h.guild.id, type: 0, allow: '0', deny: VIEW }]);
    await h.startApp();
    const [report] = await waitFor(async () => {
      const u = await updates(channel.id);
      return u.length ? u : null;
    }, 15_000);
    expect(report.data).toMatchObject({ channelId: channel.id, audience: 'private' });
  });
});
