import { Subjects, type MemoryEpoch, type MemorySearchResult } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { epochEvents, MemoryHarness } from './harness';

jest.setTimeout(60_000);

describe('conversation epochs', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await MemoryHarness.start({ DIRIGENT_EPOCH_GAP_MS: '1500' });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('closes a channel’s epoch after the gap of silence, once; the raw messages stay', async () => {
    const g = h.guild();
    const channel = snowflake();
    const [ann, ben] = [snowflake(), snowflake()];
    const now = Date.now();
    await g.say(channel, ann, 'shall we plan the hiking trip?', {
      createdAt: new Date(now).toISOString(),
    });
    await g.say(channel, ben, 'yes, the alps in june', {
      createdAt: new Date(now + 100).toISOString(),
    });
    await g.say(channel, ann, 'I will book the hut', {
      createdAt: new Date(now + 200).toISOString(),
    });
    const { epochs } = await waitFor(
      async () => {
        const r = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
          guildId: g.guildId,
        });
        return r.epochs.length ? r : null;
      },
      15_000,
      100,
      'the epoch to close',
    );
    expect(epochs).toHaveLength(1);
    expect(epochs[0]).toMatchObject({
      channelId: channel,
      messageCount: 3,
      participants: [ann, ben],
    });
    expect(epochs[0].summary.length).toBeGreaterThan(0);
    await waitFor(async () => (await epochEvents(h, g.guildId, channel)) === 1);
    const { hits } = await h.ok<MemorySearchResult>(Subjects.memory.search, {
      guildId: g.guildId,
      query: 'hiking trip',
      layers: ['archive'],
    });
    expect(hits.map((x) => x.text)).toContain('shall we plan the hiking trip?');
    // A later conversation is a new epoch.
    await g.say(channel, ben, 'back from the trip!', { createdAt: new Date().toISOString() });
    await waitFor(
      async () => {
        const r = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
          guildId: g.guildId,
          channelId: channel,
        });
        return r.epochs.length === 2;
      },
      15_000,
      100,
    );
    // The event follows the stored epoch: wait for it, then there must be no third.
    await waitFor(async () => (await epochEvents(h, g.guildId, channel)) >= 2);
    expect(await epochEvents(h, g.guildId, channel)).toBe(2);
  });
});
