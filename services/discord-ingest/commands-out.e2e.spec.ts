import './testing/fresh-orm-metadata';
import { Streams, Subjects, type DeadLetterRecord } from '@dirigent/contracts';
import { uid, waitFor } from '@dirigent/testing';
import { newChannel, nextSeq, readStream, startHarness, type Harness } from './testing/harness';

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
