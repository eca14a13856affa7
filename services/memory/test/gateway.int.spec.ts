import type { INestApplication } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Subjects, type MemoryEpoch, type MemorySearchResult } from '@dirigent/contracts';
import { HASHED_EMBEDDER_DIMENSIONS } from '@dirigent/memory-domain';
import { startServiceApp } from '@dirigent/service-kit';
import { snowflake, waitFor } from '@dirigent/testing';
import { LlmGatewayService } from '../../llm-gateway/llm-gateway.module';
import { MemoryHarness, memoryEnv } from './harness';

jest.setTimeout(60_000);

/** Memory as `npm start` runs it: embeddings and summaries through the gateway's offline model. */
describe('memory through the model gateway', () => {
  let gateway: INestApplication;
  let h: MemoryHarness;
  beforeAll(async () => {
    gateway = (await startServiceApp(LlmGatewayService, memoryEnv({ LLM_GATEWAY_PORT: '0' }))).app;
    h = await MemoryHarness.start({
      DIRIGENT_MEMORY_EMBEDDER: 'gateway',
      DIRIGENT_EPOCH_GAP_MS: '1000',
    });
  });
  afterAll(async () => {
    await h?.stop();
    await gateway?.close();
  });

  it('stores the gateway’s vectors, finds word pieces through them, and closes epochs with its summary', async () => {
    const g = h.guild();
    const channel = snowflake();
    const author = snowflake();
    const now = Date.now();
    await g.say(channel, author, 'I keep bees on the roof of our apartment', {
      createdAt: new Date(now).toISOString(),
    });
    await g.say(channel, author, 'the standup took forever', {
      createdAt: new Date(now + 10).toISOString(),
    });
    await h.waitForCount(g.guildId, author, 2);
    const [row] = await h
      .app!.get(MikroORM)
      .em.getConnection()
      .execute<
        { model: string; dims: number }[]
      >(`select model, array_length(vector, 1) as dims from memory_embedding where guild_id = ? limit 1`, [g.guildId]);
    expect(row.model).toMatch(/\/512$/);
    expect(row.dims).toBe(HASHED_EMBEDDER_DIMENSIONS);
    const { hits } = await h.ok<MemorySearchResult>(Subjects.memory.search, {
      guildId: g.guildId,
      query: 'beekeeper',
    });
    expect(hits[0]?.text).toBe('I keep bees on the roof of our apartment');
    const { epochs } = await waitFor(
      async () => {
        const r = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
          guildId: g.guildId,
        });
        return r.epochs.length ? r : null;
      },
      20_000,
      100,
    );
    expect(epochs[0]).toMatchObject({ messageCount: 2, participants: [author] });
    expect(epochs[0].summary).not.toBe('');
  });
});
