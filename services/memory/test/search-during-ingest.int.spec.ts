import { EntityManager } from '@mikro-orm/postgresql';
import { subject, Subjects, type MemorySearchResult } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { MemoryHarness } from './harness';

jest.setTimeout(180_000);

const BATCH = 5_000;

/**
 * A search never waits behind the ingest: issued once a batch of 5,000 messages has begun
 * to be stored, its answer arrives while most of that batch is still to be written. The
 * order is what is observed (how many of the batch's messages were stored when the answer
 * came), never a duration.
 */
describe('search during a large ingest', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await MemoryHarness.start();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('answers a search before a 5,000-message batch is stored', async () => {
    const g = h.guild();
    const channel = snowflake();
    const author = snowflake();
    await g.say(channel, author, 'the lighthouse keeper painted the door blue');
    await h.waitForCount(g.guildId, author, 1);
    const em = h.app!.get(EntityManager);
    const stored = async () => {
      const [row] = await em
        .fork()
        .getConnection()
        .execute<
          { n: string }[]
        >(`select count(*) n from memory_message where guild_id = ? and author_id <> ?`, [g.guildId, author]);
      return Number(row.n);
    };

    // The batch goes onto the stream as one burst, the way a busy guild's backlog arrives.
    const base = snowflake();
    await Promise.all(
      Array.from({ length: BATCH }, (_, i) =>
        h.messaging.publishEvent(
          subject.discordEvent(g.guildId, channel, 'message.created'),
          'message.created',
          {
            guildId: g.guildId,
            channelId: channel,
            messageId: `${base.slice(0, 12)}${String(i).padStart(6, '0')}`,
            authorId: snowflake(),
            authorIsBot: false,
            content: `routine chatter number ${i} about the weekend plans`,
            createdAt: new Date(Date.now() - BATCH + i).toISOString(),
          },
          { id: `search-during-ingest:${g.guildId}:${i}` },
        ),
      ),
    );
    await waitFor(async () => (await stored()) > 0, 120_000, 5, 'the batch begins to be stored');

    const reply = await h.request<MemorySearchResult>(Subjects.memory.search, {
      guildId: g.guildId,
      query: 'lighthouse door',
    });
    const storedWhenAnswered = await stored();

    expect(reply.ok && reply.data.hits.map((x) => x.text)).toContain(
      'the lighthouse keeper painted the door blue',
    );
    expect(storedWhenAnswered).toBeLessThan(BATCH);
    // The batch does finish: the search went ahead of it, it did not stop it.
    await waitFor(async () => (await stored()) === BATCH, 120_000, 100, 'the whole batch');
  });
});
