import { Subjects, type MemorySearchResult } from '@dirigent/contracts';
import { snowflake } from '@dirigent/testing';
import type { Behavior, Seen } from '../../llm-gateway/test/fake-upstreams';
import { startFakeModel, type EchoModel } from './echo-model';
import { MemoryHarness } from './harness';

jest.setTimeout(90_000);

/** The user message of a request to the fake model. */
const userText = (seen: Seen) =>
  ((seen.body.messages ?? []) as { role: string; content: string }[]).find((m) => m.role === 'user')
    ?.content ?? '';

/**
 * Purpose `rerank` through the real gateway to a local OpenAI-speaking server: the model's
 * order wins when it gives one; a model that stalls past the timeout, fails or answers
 * without an order leaves memory's own order.
 */
describe('memory search reranked by the model (purpose rerank)', () => {
  let model: EchoModel;
  let h: MemoryHarness;
  let behaviour: (seen: Seen) => Behavior;
  beforeAll(async () => {
    model = await startFakeModel((seen) => behaviour(seen));
    h = await MemoryHarness.start({
      DIRIGENT_MEMORY_RERANK: 'true',
      DIRIGENT_MEMORY_RERANK_TOP: '10',
      DIRIGENT_MEMORY_RERANK_TIMEOUT_MS: '1500',
    });
  });
  afterAll(async () => {
    await h?.stop();
    await model?.close();
  });

  /** A guild with three messages about kayaks, and their order without the model. */
  async function kayakGuild() {
    const g = h.guild();
    const channel = snowflake();
    const [ann, ben] = [snowflake(), snowflake()];
    await g.say(channel, ann, 'kayak kayak kayak, the kayak shop had a kayak sale');
    await g.say(channel, ben, 'my cousin sells kayak paddles and kayak racks');
    await g.say(channel, ann, 'we finally paddled the whole kayak route to the lighthouse');
    await h.waitForCount(g.guildId, ann, 2);
    behaviour = () => ({ kind: 'ok', text: 'I would rather not say' });
    const own = await search(g.guildId);
    expect(own).toHaveLength(3);
    return { g, own };
  }

  const search = async (guildId: string) =>
    (
      await h.ok<MemorySearchResult>(Subjects.memory.search, {
        guildId,
        query: 'kayak',
        layers: ['archive'],
        k: 3,
      })
    ).hits.map((hit) => hit.text);

  it("puts the model's choice first and keeps the rest in the cheap order", async () => {
    const { g, own } = await kayakGuild();
    const last = own[2];
    behaviour = (seen) => {
      const text = userText(seen);
      if (!text.startsWith('Question:')) return { kind: 'ok', text: '{}' };
      const n = text
        .split('\n')
        .find((l) => l.endsWith(last))
        ?.match(/^\[(\d+)\]/)?.[1];
      return { kind: 'ok', text: JSON.stringify({ order: [Number(n)] }) };
    };
    const before = model.upstream.seen.length;
    expect(await search(g.guildId)).toEqual([last, own[0], own[1]]);
    const asked = model.upstream.seen.slice(before).map(userText);
    expect(asked.find((t) => t.startsWith('Question: kayak'))).toContain(`[3] `);
  });

  it('keeps its own order when the model fails or stalls past the timeout', async () => {
    const { g, own } = await kayakGuild();
    behaviour = () => ({ kind: 'error', status: 500, message: 'boom' });
    expect(await search(g.guildId)).toEqual(own);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    behaviour = () => ({ kind: 'hold', until: held, then: { kind: 'ok', text: '{"order":[3]}' } });
    try {
      expect(await search(g.guildId)).toEqual(own);
    } finally {
      release();
    }
  });
});
