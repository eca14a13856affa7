import { Streams, Subjects, type DeadLetterRecord } from '@dirigent/contracts';
import { uid, waitFor } from '@dirigent/testing';
import { newChannel, nextSeq, readStream, startHarness, type Harness } from './harness';

describe('discord-ingest commands out (real discord.js against the local Discord)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const send = (data: Record<string, unknown>) =>
    h.nats.publishEvent(Subjects.discord.cmdSendMessage, 'send-message', {
      guildId: h.guild.id,
      purpose: 'agent-reply',
      ...data,
    });
  const contents = (channelId: string) =>
    h.discord.channelMessages(channelId).map((m) => m.content);
  const postsTo = (channelId: string) =>
    h.discord.requests.filter(
      (r) => r.method === 'POST' && r.path === `/channels/${channelId}/messages`,
    );

  it('sends a message published on NATS to the channel, as the bot', async () => {
    const channel = newChannel(h);
    await send({ channelId: channel.id, content: 'hello from dirigent' });
    await waitFor(() => contents(channel.id).length === 1, 15_000);
    const [m] = h.discord.channelMessages(channel.id);
    expect(m.content).toBe('hello from dirigent');
    expect(m.authorId).toBe(h.discord.bot.id);
  });

  it('splits 2,500 characters into two messages, in order', async () => {
    const channel = newChannel(h);
    const first = `${'a'.repeat(1200)}\n${'b'.repeat(600)}`;
    const second = 'c'.repeat(699);
    await send({ channelId: channel.id, content: `${first}\n${second}` });
    await waitFor(() => contents(channel.id).length === 2, 15_000);
    expect(contents(channel.id)).toEqual([first, second]);
  });

  it('waits out a 429 with retry_after, then delivers exactly once', async () => {
    const channel = newChannel(h);
    h.discord.failNext({
      method: 'POST',
      path: `/channels/${channel.id}/messages`,
      status: 429,
      retryAfter: 0.4,
    });
    await send({ channelId: channel.id, content: 'patient' });
    await waitFor(() => contents(channel.id).length === 1, 15_000);
    const posts = postsTo(channel.id);
    expect(posts.map((p) => p.status)).toEqual([429, 200]);
    expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(400);
    expect(contents(channel.id)).toEqual(['patient']);
  });

  it("lets other channels send while one waits out a 429, and keeps each channel's order", async () => {
    const slow = newChannel(h, 'slow');
    const fast = newChannel(h, 'fast');
    h.discord.failNext({
      method: 'POST',
      path: `/channels/${slow.id}/messages`,
      status: 429,
      retryAfter: 2,
    });
    await send({ channelId: slow.id, content: 'slow 1' });
    await send({ channelId: slow.id, content: 'slow 2' });
    for (const n of [1, 2, 3]) await send({ channelId: fast.id, content: `fast ${n}` });
    await waitFor(() => contents(fast.id).length === 3, 15_000);
    expect(contents(fast.id)).toEqual(['fast 1', 'fast 2', 'fast 3']);
    expect(contents(slow.id)).toEqual([]);
    await waitFor(() => contents(slow.id).length === 2, 15_000);
    expect(contents(slow.id)).toEqual(['slow 1', 'slow 2']);
    const [limited] = postsTo(slow.id);
    const fastDone = Math.max(...postsTo(fast.id).map((p) => p.at));
    expect(fastDone - limited.at).toBeLessThan(1500);
  });

  it('retries server errors with backoff and then delivers', async () => {
    const channel = newChannel(h);
    h.discord.failNext({
      method: 'POST',
      path: `/channels/${channel.id}/messages`,
      status: 500,
      times: 3,
    });
    await send({ channelId: channel.id, content: 'eventually' });
    await waitFor(() => contents(channel.id).length === 1, 20_000);
    expect(postsTo(channel.id).map((p) => p.status)).toEqual([500, 500, 500, 200]);
    expect(contents(channel.id)).toEqual(['eventually']);
  });

  it('dead-letters a permanent 403 (missing access) without retrying', async () => {
    const channel = newChannel(h);
    h.discord.failNext({
      method: 'POST',
      path: `/channels/${channel.id}/messages`,
      status: 403,
      code: 50001,
      message: 'Missing Access',
    });
    const marker = uid('forbidden');
    const from = await nextSeq(h.nats, Streams.deadLetter);
    await send({ channelId: channel.id, content: marker });
    const record = await waitFor(
      async () => {
        const dead = await readStream<DeadLetterRecord>(
          h.nats,
          Streams.deadLetter,
          `${Subjects.deadLetter.prefix}.${Streams.discordCommands}.>`,
          from,
        );
        return dead.find((d) => d.data.payload.includes(marker));
      },
      15_000,
      200,
      'dead letter',
    );
    expect(record.data.error).toMatch(/Missing Access/);
    expect(record.data.deliveries).toBe(1);
    expect(postsTo(channel.id)).toHaveLength(1);
    expect(contents(channel.id)).toEqual([]);
  });

  it('dead-letters a send to an unknown channel', async () => {
    const marker = uid('unknown');
    const from = await nextSeq(h.nats, Streams.deadLetter);
    await send({ channelId: '1234567', content: marker });
    await waitFor(
      async () =>
        (
          await readStream<DeadLetterRecord>(
            h.nats,
            Streams.deadLetter,
            `${Subjects.deadLetter.prefix}.${Streams.discordCommands}.>`,
            from,
          )
        ).find((d) => d.data.payload.includes(marker)),
      15_000,
      200,
    );
  });

  it('deletes right after sending when deleteAfterSend is set', async () => {
    const channel = newChannel(h);
    const deleted: string[] = [];
    const onDelete = (m: { channelId: string; content: string }) => {
      if (m.channelId === channel.id) deleted.push(m.content);
    };
    h.discord.on('messageDeleted', onDelete);
    await send({
      channelId: channel.id,
      content: '➡️ <@1>',
      deleteAfterSend: true,
      purpose: 'schedule-identifier',
    });
    await waitFor(() => deleted.length === 1, 15_000);
    h.discord.off('messageDeleted', onDelete);
    expect(deleted).toEqual(['➡️ <@1>']);
    expect(contents(channel.id)).toEqual([]);
  });

  it('speaks as an agent through one reused channel webhook', async () => {
    const channel = newChannel(h);
    await send({ channelId: channel.id, content: 'first words', asAgentId: 'scribe' });
    await send({ channelId: channel.id, content: 'second words', asAgentId: 'scribe' });
    await waitFor(() => contents(channel.id).length === 2, 15_000);
    const hooks = [...h.discord.webhooks.values()].filter((w) => w.channelId === channel.id);
    expect(hooks.map((w) => w.name)).toEqual(['scribe']);
    const msgs = h.discord.channelMessages(channel.id);
    expect(msgs.map((m) => [m.webhookId, m.webhookUsername, m.content])).toEqual([
      [hooks[0].id, 'scribe', 'first words'],
      [hooks[0].id, 'scribe', 'second words'],
    ]);
  });

  it('deletes a message on delete-message, and treats an already-deleted one as done', async () => {
    const channel = newChannel(h);
    const m = h.discord.postMessage({
      channelId: channel.id,
      authorId: h.alice.id,
      content: 'bye',
    });
    const del = () =>
      h.nats.publishEvent(Subjects.discord.cmdDeleteMessage, 'delete-message', {
        guildId: h.guild.id,
        channelId: channel.id,
        messageId: m.id,
      });
    await del();
    await waitFor(() => contents(channel.id).length === 0, 15_000);
    await del();
    await send({ channelId: channel.id, content: 'after' });
    await waitFor(() => contents(channel.id).length === 1, 15_000);
    const deletes = h.discord.requests.filter(
      (r) => r.method === 'DELETE' && r.path === `/channels/${channel.id}/messages/${m.id}`,
    );
    expect(deletes.map((r) => r.status)).toEqual([204, 404]);
  });

  it('reacts to a message as the bot, unicode and custom, once per emoji', async () => {
    const channel = newChannel(h);
    const m = h.discord.postMessage({ channelId: channel.id, authorId: h.alice.id, content: 'hi' });
    const react = (emoji: string) =>
      h.nats.publishEvent(Subjects.discord.cmdAddReaction, 'add-reaction', {
        guildId: h.guild.id,
        channelId: channel.id,
        messageId: m.id,
        emoji,
      });
    await react('👀');
    await react('party:123456789012345678');
    await react('👀');
    const puts = () =>
      h.discord.requests.filter(
        (r) => r.method === 'PUT' && r.path.startsWith(`/channels/${channel.id}/messages/${m.id}/`),
      );
    await waitFor(() => puts().length === 3, 15_000);
    const [stored] = h.discord.channelMessages(channel.id);
    expect(stored.reactions).toEqual([
      { emoji: '👀', userIds: [h.discord.bot.id] },
      { emoji: 'party:123456789012345678', userIds: [h.discord.bot.id] },
    ]);
  });

  it('dead-letters a reaction Discord does not know, and one to a deleted message', async () => {
    const channel = newChannel(h);
    const m = h.discord.postMessage({ channelId: channel.id, authorId: h.alice.id, content: 'x' });
    const gone = h.discord.postMessage({
      channelId: channel.id,
      authorId: h.alice.id,
      content: 'y',
    });
    h.discord.deleteMessage(channel.id, gone.id);
    const from = await nextSeq(h.nats, Streams.deadLetter);
    const word = uid('smile').replace(/-/g, '_');
    const react = (messageId: string, emoji: string) =>
      h.nats.publishEvent(Subjects.discord.cmdAddReaction, 'add-reaction', {
        guildId: h.guild.id,
        channelId: channel.id,
        messageId,
        emoji,
      });
    await react(m.id, word);
    await react(gone.id, '🙂');
    const dead = await waitFor(
      async () => {
        const all = await readStream<DeadLetterRecord>(
          h.nats,
          Streams.deadLetter,
          `${Subjects.deadLetter.prefix}.${Streams.discordCommands}.>`,
          from,
        );
        const mine = all.filter((d) => d.data.payload.includes(channel.id));
        return mine.length >= 2 ? mine : null;
      },
      15_000,
      200,
      'dead letters',
    );
    expect(dead.map((d) => d.data.error).sort()).toEqual([
      expect.stringMatching(/Unknown Emoji/),
      expect.stringMatching(/Unknown Message/),
    ]);
    expect(dead.map((d) => d.data.deliveries)).toEqual([1, 1]);
  });

  it('shows the bot typing on a typing command', async () => {
    const channel = newChannel(h);
    await h.nats.publishEvent(Subjects.discord.cmdTyping, 'typing', {
      guildId: h.guild.id,
      channelId: channel.id,
    });
    await waitFor(
      () =>
        h.discord.requests.some(
          (r) =>
            r.method === 'POST' && r.path === `/channels/${channel.id}/typing` && r.status === 204,
        ),
      15_000,
    );
  });

  it('replies to a message when replyToMessageId is given', async () => {
    const channel = newChannel(h);
    const question = h.discord.postMessage({
      channelId: channel.id,
      authorId: h.alice.id,
      content: 'question?',
    });
    await send({ channelId: channel.id, content: 'answer', replyToMessageId: question.id });
    await waitFor(() => contents(channel.id).length === 2, 15_000);
    expect(h.discord.channelMessages(channel.id)[1]).toMatchObject({
      content: 'answer',
      replyToMessageId: question.id,
    });
  });

  it('recreates an agent webhook that was deleted on Discord', async () => {
    const channel = newChannel(h);
    await send({ channelId: channel.id, content: 'one', asAgentId: 'herald' });
    await waitFor(() => contents(channel.id).length === 1, 15_000);
    const [first] = [...h.discord.webhooks.values()].filter((w) => w.channelId === channel.id);
    h.discord.webhooks.delete(first.id);
    await send({ channelId: channel.id, content: 'two', asAgentId: 'herald' });
    await waitFor(() => contents(channel.id).length === 2, 15_000);
    const [second] = [...h.discord.webhooks.values()].filter((w) => w.channelId === channel.id);
    expect(second.id).not.toBe(first.id);
    expect(h.discord.channelMessages(channel.id).map((m) => m.webhookId)).toEqual([
      first.id,
      second.id,
    ]);
  });
});
