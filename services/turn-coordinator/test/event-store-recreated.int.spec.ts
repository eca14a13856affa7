import { StreamSpecs, subject } from '@dirigent/contracts';
import { ensureStream } from '@dirigent/messaging';
import { snowflake, waitFor } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from './harness';

/**
 * A lost NATS store under a running coordinator: every stream is deleted and created again
 * (sequences restart at 1) while Postgres keeps the read models and their checkpoints. The
 * projections notice the new stream and rebuild; `admin.channel.get` answers the new state
 * within 30 s instead of the old rows or a timeout.
 */
describe('turn coordinator: the event store stream deleted and created again', () => {
  let h: Harness;
  let agents: Agent[];

  beforeAll(async () => {
    h = await Harness.start();
    agents = makeAgents(2, 'lost');
    await h.register(agents);
  });

  afterAll(async () => {
    await h?.close();
  });

  const createChat = (name: string) =>
    h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name,
      participants: [agents[1].userId],
    });

  it('rebuilds the read models from the new stream and answers its state', async () => {
    // A populated database: channels in several settings, their checkpoints well past 1.
    const before = await createChat('before');
    for (let i = 0; i < 5; i++) await createChat(`filler-${i}`);
    expect(await h.channel(before.channelId)).toMatchObject({ mode: 'chat' });

    const { jsm } = h.messaging.client;
    for (const spec of Object.values(StreamSpecs)) {
      await jsm.streams.delete(spec.name).catch(() => undefined);
    }
    for (const spec of Object.values(StreamSpecs)) await ensureStream(jsm, spec);
    // The fake Discord's own command consumer is a bare test double: subscribed again here.
    // The coordinator's durables come back by themselves.
    await h.fake.stop();
    await h.fake.start();

    // The new stream holds nothing of `before`: it reads as a channel never seen (not
    // `chat`, the old row), and a channel made now reads as made.
    const unknown = await h.channel(snowflake());
    expect(unknown.mode).not.toBe('chat');
    await waitFor(
      async () => (await h.channel(before.channelId)).mode === unknown.mode,
      30_000,
      200,
      'the old channel read as the new stream has it',
    );
    await h.register(agents);
    const after = await waitFor(
      () => createChat('after').catch(() => undefined),
      30_000,
      500,
      'a channel created on the new stream',
    );
    const view = await waitFor(
      async () => {
        const v = await h.channel(after.channelId);
        return v.mode === 'chat' && v;
      },
      30_000,
      200,
      'the new channel in the read model',
    );
    expect(view).toMatchObject({ mode: 'chat', guildId: h.guildId });
    expect(await h.channel(before.channelId)).toMatchObject({ mode: unknown.mode });

    // The durable consumers came back with their streams: a human's message is granted.
    const grants = await h.grants(after.channelId);
    await h.fake.post(h.guildId, after.channelId, snowflake(), 'anyone there?', false);
    await waitFor(() => grants.length >= 1, 30_000, 100, 'a grant on the new streams');
  });
});
