import {
  DomainError,
  ErrorCodes,
  SlashChannelRequest,
  Subjects,
  type ChannelView,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { newChannel, startHarness, type Harness } from './harness';

/** Answers the coordinator's slash-command doors for the test's channels. */
class FakeCoordinator {
  readonly calls: { subject: string; data: unknown }[] = [];
  readonly views = new Map<string, ChannelView>();

  constructor(private readonly m: Messaging) {}

  serve(): void {
    const view = (channelId: string): ChannelView => {
      const v = this.views.get(channelId);
      if (!v) throw new DomainError(ErrorCodes.NOT_FOUND, `no channel ${channelId}`);
      return v;
    };
    const slash = Subjects.turn.slash;
    this.m.serve(slash.setMode, {
      payload: SlashChannelRequest,
      handler: async (r) => {
        this.calls.push({ subject: 'set-mode', data: r });
        const v = view(r.channelId);
        if (v.mode === 'discussion') {
          throw new DomainError(ErrorCodes.MODE_LOCKED, 'a discussion channel keeps its mode');
        }
        v.mode = r.mode as ChannelView['mode'];
        return { mode: r.mode };
      },
    });
    this.m.serve(slash.setShuffle, {
      payload: SlashChannelRequest,
      handler: async (r) => {
        this.calls.push({ subject: 'set-shuffle', data: r });
        view(r.channelId).shuffle = r.shuffle ?? null;
        return {};
      },
    });
    this.m.serve(slash.skip, {
      payload: SlashChannelRequest,
      handler: async (r) => {
        this.calls.push({ subject: 'advance', data: r });
        const v = view(r.channelId);
        const at = v.speakers.indexOf(v.currentSpeaker ?? '');
        v.currentSpeaker = v.speakers[(at + 1) % v.speakers.length] ?? null;
        return v;
      },
    });
    this.m.serve(slash.status, {
      payload: SlashChannelRequest,
      handler: async (r) => view(r.channelId),
    });
  }
}

const chatView = (): ChannelView => ({
  mode: 'chat',
  tmState: 'normal',
  currentSpeaker: null,
  speakers: [],
  dormant: false,
  multiMessage: false,
  shuffle: false,
});

describe('discord-ingest slash commands (real discord.js against the local Discord)', () => {
  let h: Harness;
  let coordinator: FakeCoordinator;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  const run = (channelId: string, userId: string, name: string, options: unknown[] = []) =>
    h.discord.runCommand({ guildId: h.guild.id, channelId, userId, name, options });
  const mode = (value: string) => [{ type: 3, name: 'mode', value }];
  const sub = (name: string, options: unknown[] = []) => [{ type: 1, name, options }];

  it('registers its commands in the guild, idempotently', async () => {
    const mine = [...h.discord.commands.values()].filter((c) => c.guildId === h.guild.id);
    expect(mine.map((c) => c.name).sort()).toEqual(['dirigent', 'set-channel-mode']);
    const puts = h.discord.requests.filter(
      (r) => r.method === 'PUT' && r.path.endsWith(`/guilds/${h.guild.id}/commands`),
    );
    expect(puts).toHaveLength(1);
  });

  it('says plainly when no coordinator answers', async () => {
    const channel = newChannel(h);
    const answer = await run(channel.id, h.alice.id, 'set-channel-mode', mode('chat'));
    expect(answer.ephemeral).toBe(true);
    expect(answer.content).toMatch(/coordinator is unavailable/);
  });

  describe('with a coordinator', () => {
    beforeAll(async () => {
      coordinator = new FakeCoordinator(h.nats);
      coordinator.serve();
      // The subscriptions reach the server before the first command asks (else: no
      // responders, which the ingest rightly reports as an unavailable coordinator).
      await h.nats.client.nc.flush();
    });

    it('sets the mode for a member with Manage Channels', async () => {
      const channel = newChannel(h);
      coordinator.views.set(channel.id, { ...chatView(), mode: 'none' });
      const answer = await run(channel.id, h.alice.id, 'set-channel-mode', mode('report'));
      expect(answer).toMatchObject({
        ephemeral: true,
        content: 'This channel is now in report mode.',
      });
      expect(coordinator.views.get(channel.id)?.mode).toBe('report');
      expect(coordinator.calls).toContainEqual({
        subject: 'set-mode',
        data: expect.objectContaining({
          guildId: h.guild.id,
          channelId: channel.id,
          userId: h.alice.id,
          canManageChannels: true,
          mode: 'report',
        }),
      });
    });

    it('refuses members without Manage Channels, without asking the coordinator', async () => {
      const channel = newChannel(h);
      coordinator.views.set(channel.id, chatView());
      const before = coordinator.calls.length;
      const answer = await run(channel.id, h.bob.id, 'set-channel-mode', mode('none'));
      expect(answer.content).toMatch(/Manage Channels/);
      const shuffle = await run(
        channel.id,
        h.bob.id,
        'dirigent',
        sub('turn-shuffling', [{ type: 3, name: 'value', value: 'on' }]),
      );
      expect(shuffle.content).toMatch(/Manage Channels/);
      expect(coordinator.calls.length).toBe(before);
      expect(coordinator.views.get(channel.id)?.mode).toBe('chat');
    });

    it('refuses work and discussion with a clear message', async () => {
      const channel = newChannel(h);
      for (const m of ['work', 'discussion']) {
        const answer = await run(channel.id, h.alice.id, 'set-channel-mode', mode(m));
        expect(answer.ephemeral).toBe(true);
        expect(answer.content).toContain(`${m} channels are created by the agents' tools`);
      }
    });

    it("shows the coordinator's errors plainly", async () => {
      const channel = newChannel(h);
      coordinator.views.set(channel.id, { ...chatView(), mode: 'discussion' });
      const answer = await run(channel.id, h.alice.id, 'set-channel-mode', mode('chat'));
      expect(answer.content).toBe(
        'Could not set the mode to chat: a discussion channel keeps its mode (MODE_LOCKED)',
      );
    });

    it('shows and sets turn shuffling', async () => {
      const channel = newChannel(h);
      coordinator.views.set(channel.id, { ...chatView(), shuffle: null });
      const shown = await run(channel.id, h.bob.id, 'dirigent', sub('turn-shuffling'));
      expect(shown.content).toBe('Turn shuffling: automatic (decided by the number of agents)');
      const set = await run(
        channel.id,
        h.alice.id,
        'dirigent',
        sub('turn-shuffling', [{ type: 3, name: 'value', value: 'on' }]),
      );
      expect(set.content).toBe('Turn shuffling is now on.');
      expect(coordinator.views.get(channel.id)?.shuffle).toBe(true);
    });

    it('skips the current speaker for a manager, and refuses others', async () => {
      const channel = newChannel(h);
      coordinator.views.set(channel.id, {
        ...chatView(),
        speakers: [h.otherBot.id, h.alice.id],
        currentSpeaker: h.otherBot.id,
      });
      const refused = await run(channel.id, h.bob.id, 'dirigent', sub('skip'));
      expect(refused.content).toMatch(/Manage Channels/);
      expect(coordinator.views.get(channel.id)?.currentSpeaker).toBe(h.otherBot.id);
      const answer = await run(channel.id, h.alice.id, 'dirigent', sub('skip'));
      expect(answer).toMatchObject({
        ephemeral: true,
        content: `Skipped. Current speaker: <@${h.alice.id}>`,
      });
      expect(coordinator.calls).toContainEqual({
        subject: 'advance',
        data: expect.objectContaining({
          guildId: h.guild.id,
          channelId: channel.id,
          userId: h.alice.id,
          canManageChannels: true,
        }),
      });
    });

    it('shows the status to anyone', async () => {
      const channel = newChannel(h);
      coordinator.views.set(channel.id, {
        ...chatView(),
        speakers: [h.otherBot.id, h.alice.id],
        currentSpeaker: h.otherBot.id,
        dormant: true,
      });
      const answer = await run(channel.id, h.bob.id, 'dirigent', sub('status'));
      expect(answer.content).toContain('Mode: chat');
      expect(answer.content).toContain('State: normal (dormant)');
      expect(answer.content).toContain(`Speaker order: <@${h.otherBot.id}> → <@${h.alice.id}>`);
      expect(answer.content).toContain(`Current speaker: <@${h.otherBot.id}>`);
    });
  });
});
