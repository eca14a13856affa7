import type { INestApplication } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { Subjects, type MemoryEpoch, type MemoryHit } from '@dirigent/contracts';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, waitFor } from '@dirigent/testing';
import { ArchiveIndex } from '../adapters/archive-index';
import { MemoryService } from '../memory.module';
import { MemoryHarness, memoryEnv } from './harness';

jest.setTimeout(90_000);

/**
 * Memory as deployed in two roles (`DIRIGENT_MEMORY_ROLE`): a `jobs` replica consumes the
 * Discord events and fires the epoch timers but holds no index and answers nothing; a
 * `queries` replica answers every request from indexes that follow the table — what the
 * jobs replica stores becomes searchable, and what it deletes leaves the queries replica's
 * index, not only its hits read back.
 */
describe('memory in a queries and a jobs replica', () => {
  let h: MemoryHarness;
  let jobs: INestApplication;
  let queries: INestApplication | undefined;
  const role = async (r: 'jobs' | 'queries') =>
    (
      await startServiceApp(
        MemoryService,
        memoryEnv({ DIRIGENT_MEMORY_ROLE: r, DIRIGENT_EPOCH_GAP_MS: '1000' }),
      )
    ).app;

  beforeAll(async () => {
    h = await MemoryHarness.connect();
    jobs = await role('jobs');
  });
  afterAll(async () => {
    await queries?.close();
    await jobs?.close();
    await h?.stop();
  });

  it('stores on the jobs replica and answers, following its writes and deletions, on the queries one', async () => {
    const g = h.guild();
    const other = h.guild();
    const channel = snowflake();
    const ann = snowflake();
    const search = (query: string, guildId = g.guildId) =>
      h.request<{ hits: MemoryHit[] }>(Subjects.memory.search, { guildId, query, k: 5 });

    // Nothing answers before the queries replica is up: the jobs replica subscribes to no request.
    const unanswered = await search('anything');
    expect(unanswered.ok).toBe(false);

    const kept = await g.say(channel, ann, 'the lighthouse keeper painted the door teal', {
      authorName: 'Ann',
    });
    const gone = await g.say(channel, ann, 'my tortoise Bartholomew hides under the porch', {
      authorName: 'Ann',
    });
    const otherFirst = await other.say(channel, ann, 'the choir rehearses on Thursdays', {
      authorName: 'Ann',
    });
    queries = await role('queries');
    const found = async (query: string, id: string, guildId = g.guildId) => {
      const r = await search(query, guildId);
      return r.ok && r.data.hits.some((hit) => hit.messageId === id);
    };
    await waitFor(() => found('lighthouse door teal', kept), 20_000, 100, 'the first message');
    await waitFor(() => found('tortoise Bartholomew', gone), 20_000, 100, 'the second message');
    expect(jobs.get(ArchiveIndex).report()).toEqual([]);

    // Written after the queries replica loaded the guild: followed from the table.
    const later = await g.say(channel, ann, 'the ferry to Quillhaven leaves at dawn', {
      authorName: 'Ann',
    });
    await waitFor(() => found('ferry Quillhaven', later), 20_000, 100, 'a later message');
    await waitFor(
      () => found('choir Thursdays', otherFirst, other.guildId),
      20_000,
      100,
      "the other guild's message",
    );
    // Every guild held follows the one read of the table.
    const otherLater = await other.say(channel, ann, 'the choir sings Vivaldi in March', {
      authorName: 'Ann',
    });
    await waitFor(
      () => found('choir Vivaldi', otherLater, other.guildId),
      20_000,
      100,
      "the other guild's later message",
    );

    // Deleted through the jobs replica: gone from the queries replica's own index.
    await g.delete(channel, gone);
    const index = queries.get(ArchiveIndex);
    await waitFor(
      async () => !(await index.get(g.guildId, 5_000))?.has(gone),
      20_000,
      100,
      'the deletion to leave the queries replica index',
    );
    expect(await found('tortoise Bartholomew', gone)).toBe(false);
    expect((await index.get(g.guildId, 5_000))?.has(kept)).toBe(true);

    // The channel's epoch closes on the jobs replica's timer; the queries replica lists it.
    // Both guilds' epochs close and the deletion's redaction is done before the replicas
    // stop, so that no timer or job of this file is left for the next file's replicas.
    for (const guildId of [g.guildId, other.guildId]) {
      await waitFor(
        async () => {
          const r = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
            guildId,
          });
          return r.epochs.some((e) => e.channelId === channel);
        },
        30_000,
        100,
        'the epoch to close',
      );
    }
    const db = jobs.get(EntityManager);
    await waitFor(
      async () =>
        (
          await db
            .fork()
            .getConnection()
            .execute<
              { n: string }[]
            >('select count(*) n from memory_redaction where guild_id = ? and done_at is null', [g.guildId])
        )[0].n === '0',
      30_000,
      100,
      'the redaction to be done',
    );
  });
});
