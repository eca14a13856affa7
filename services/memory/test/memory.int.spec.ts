import {
  CONTEXT_STRATEGIES,
  Subjects,
  type MemoryContextResult,
  type MemoryDossier,
  type MemoryHighlight,
  type MemorySearchResult,
} from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { MemoryHarness } from './harness';

jest.setTimeout(60_000);

let h: MemoryHarness;
beforeAll(async () => {
  h = await MemoryHarness.start();
});
afterAll(async () => {
  await h?.stop();
});

const search = (guildId: string, query: string, extra: Record<string, unknown> = {}) =>
  h.ok<MemorySearchResult>(Subjects.memory.search, { guildId, query, ...extra });
const context = (guildId: string, channelId: string, strategy: string, extra = {}) =>
  h.ok<MemoryContextResult>(Subjects.memory.context, { guildId, channelId, strategy, ...extra });

describe('memory over NATS and Postgres', () => {
  const general = snowflake();
  const random = snowflake();
  const alice = snowflake();
  const bob = snowflake();

  it('finds archived messages by keyword and by near spelling, never in another guild', async () => {
    const g = h.guild();
    const other = h.guild();
    await g.say(general, alice, 'the kubernetes cluster ran out of memory again', {
      authorName: 'Alice',
    });
    await g.say(random, bob, 'sourdough starter needs feeding twice a day', { authorName: 'Bob' });
    await other.say(general, alice, 'kubernetes secret of the other guild');
    await h.waitForCount(g.guildId, alice, 1);
    await h.waitForCount(g.guildId, bob, 1);
    await h.waitForCount(other.guildId, alice, 1);

    const { hits } = await search(g.guildId, 'kubernetes memory');
    expect(hits[0]).toMatchObject({ layer: 'archive', channelId: general, authorId: alice });
    expect(hits[0].text).toBe('the kubernetes cluster ran out of memory again');
    expect(hits.some((x) => x.text.includes('other guild'))).toBe(false);
    const typo = await search(g.guildId, 'kubernetis');
    expect(typo.hits[0]?.text).toContain('kubernetes');
    const filtered = await search(g.guildId, 'kubernetes sourdough', { channelId: random });
    expect(filtered.hits.map((x) => x.channelId)).toEqual([random]);
  });

  it('stores a re-published message once (idempotent by Discord message id)', async () => {
    const g = h.guild();
    const id = await g.say(general, alice, 'exactly once please, idempotency matters');
    await g.say(general, alice, 'exactly once please, idempotency matters', { messageId: id });
    await g.say(general, alice, 'a later message');
    await h.waitForCount(g.guildId, alice, 2);
    const { hits } = await search(g.guildId, 'idempotency', { layers: ['archive'] });
    expect(hits.filter((x) => x.messageId === id)).toHaveLength(1);
  });

  it('forgets a deleted message in every layer and in search', async () => {
    const g = h.guild();
    const id = await g.say(general, alice, 'my secret plan involves llamas');
    for (const u of [bob, snowflake(), snowflake()]) await g.react(general, id, u);
    await waitFor(async () => {
      const r = await search(g.guildId, 'llamas', { layers: ['highlights'] });
      return r.hits.length === 1;
    });
    await g.delete(general, id);
    await waitFor(async () => (await search(g.guildId, 'llamas secret plan')).hits.length === 0);
    const live = await context(g.guildId, general, 'live');
    expect(live.text).not.toContain('llamas');
  });

  it('assembles every lens within maxTokens; live is guild-wide; unknown strategy is BAD_REQUEST', async () => {
    const g = h.guild();
    for (let i = 0; i < 8; i++) await g.say(general, alice, `general line ${i} about compilers`);
    await g.say(random, bob, 'meanwhile in random: compilers are fun');
    await h.waitForCount(g.guildId, alice, 8);
    await h.waitForCount(g.guildId, bob, 1);
    for (const strategy of CONTEXT_STRATEGIES) {
      const ctx = await context(g.guildId, general, strategy, {
        maxTokens: 300,
        topic: 'compilers',
      });
      expect(ctx.strategy).toBe(strategy);
      expect(ctx.tokens).toBeLessThanOrEqual(300);
    }
    const live = await context(g.guildId, general, 'live');
    expect(new Set(live.sections[0].items.map((i) => i.channelId))).toEqual(
      new Set([general, random]),
    );
    const narrow = await context(g.guildId, general, 'narrow-live');
    expect(narrow.sections[0].items.map((i) => i.text)).toEqual(
      [3, 4, 5, 6, 7].map((i) => `general line ${i} about compilers`),
    );
    expect(await context(g.guildId, general, 'none')).toEqual({
      strategy: 'none',
      sections: [],
      text: '',
      tokens: 0,
    });
    const bad = await h.request(Subjects.memory.context, {
      guildId: g.guildId,
      channelId: general,
      strategy: 'deep',
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('BAD_REQUEST');
      expect(JSON.stringify(bad.error.details)).toContain('full-rich');
    }
  });

  it('keeps a dossier with facts; a contradicted fact is superseded and ranks after the current one', async () => {
    const g = h.guild();
    const carol = snowflake();
    await g.say(general, carol, 'I live in Paris these days', { authorName: 'Carol' });
    for (let i = 0; i < 4; i++) await g.say(general, carol, `filler ${i}`, { authorName: 'Carol' });
    await g.say(general, carol, 'I just moved to Lisbon!', { authorName: 'Carol' });
    await h.waitForCount(g.guildId, carol, 6);
    const d = await h.ok<MemoryDossier>(Subjects.memory.dossierGet, {
      guildId: g.guildId,
      userId: carol,
    });
    expect(d.messageCount).toBe(6);
    expect(d.body).toContain('lives in Lisbon');
    const facts = d.signals.facts as { value: string; validUntil: string | null }[];
    expect(facts.find((f) => f.value === 'Paris')?.validUntil).not.toBeNull();
    expect(facts.find((f) => f.value === 'Lisbon')?.validUntil).toBeNull();
    const { hits } = await search(g.guildId, 'where does Carol live');
    const first = hits.find((x) => /Paris|Lisbon/.test(x.text));
    expect(first?.text).toContain('Lisbon');
    expect(hits.some((x) => x.text.includes('Paris'))).toBe(true);
  });

  it('adds highlights verbatim with attribution', async () => {
    const g = h.guild();
    const text = '  Rust is just C++ wearing a seatbelt 🦀  ';
    const id = await g.say(general, bob, text, { authorName: 'Bob' });
    await h.waitForCount(g.guildId, bob, 1);
    const hl = await h.ok<MemoryHighlight>(Subjects.memory.highlightAdd, {
      guildId: g.guildId,
      channelId: general,
      messageId: id,
    });
    expect(hl).toMatchObject({
      rawText: text,
      authorId: bob,
      authorName: 'Bob',
      messageId: id,
      kind: 'manual',
    });
    const missing = await h.request(Subjects.memory.highlightAdd, {
      guildId: g.guildId,
      channelId: general,
      messageId: snowflake(),
    });
    expect(missing.ok).toBe(false);
  });

  it('forgets one user in one guild', async () => {
    const g = h.guild();
    const other = h.guild();
    const dave = snowflake();
    const daveMessage = await g.say(general, dave, 'dave talks about zeppelins');
    await g.say(general, alice, 'alice also likes zeppelins');
    await other.say(general, dave, 'dave zeppelins elsewhere');
    await h.waitForCount(g.guildId, dave, 1);
    await h.waitForCount(g.guildId, alice, 1);
    await h.waitForCount(other.guildId, dave, 1);
    const r = await h.ok<{ removed: number }>(Subjects.memory.forget, {
      guildId: g.guildId,
      userId: dave,
    });
    expect(r.removed).toBeGreaterThanOrEqual(2);
    const { hits } = await search(g.guildId, 'zeppelins');
    expect(hits.map((x) => x.authorId)).toEqual([alice]);
    expect((await search(other.guildId, 'zeppelins')).hits).toHaveLength(1);
    // A replay of the forgotten message does not bring it back.
    await g.say(general, dave, 'dave talks about zeppelins', { messageId: daveMessage });
    await g.say(general, alice, 'after the replay');
    await h.waitForCount(g.guildId, alice, 2);
    expect((await search(g.guildId, 'zeppelins')).hits.map((x) => x.authorId)).toEqual([alice]);
  });

  it('answers bad input with BAD_REQUEST naming the field; k is 1..50', async () => {
    const bad = await h.request(Subjects.memory.search, { guildId: 'x', query: '', k: 0 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('BAD_REQUEST');
      const fields = (bad.error.details as { field: string }[]).map((d) => d.field).sort();
      expect(fields).toEqual(['guildId', 'k', 'query']);
    }
    const refused = async (subj: string, body: object) => {
      const r = await h.request(subj, body);
      if (r.ok) throw new Error(`${subj} ${JSON.stringify(body)} answered ok`);
      expect(r.error.code).toBe('BAD_REQUEST');
      return (r.error.details as { field: string }[]).map((d) => d.field);
    };
    const search1 = { guildId: '1', query: 'widgets' };
    for (const k of [1000, 51, 0, -3, 1.5, '8']) {
      expect(await refused(Subjects.memory.search, { ...search1, k })).toEqual(['k']);
    }
    expect(await refused(Subjects.memory.search, { ...search1, query: '  ' })).toEqual(['query']);
    expect(await refused(Subjects.memory.search, { ...search1, layers: ['vectors'] })).toEqual([
      'layers',
    ]);
    expect(
      await refused(Subjects.memory.search, { ...search1, since: '2026-13-01T00:00:00Z' }),
    ).toEqual(['since']);
    expect(
      await refused(Subjects.memory.search, {
        ...search1,
        since: '2026-05-02T00:00:00Z',
        until: '2026-05-01T00:00:00Z',
      }),
    ).toEqual(['until']);
    for (const [subj, body, field] of [
      [Subjects.memory.dossierGet, { guildId: '1' }, 'userId'],
      [Subjects.memory.epochsList, { guildId: '1', limit: -1 }, 'limit'],
      [Subjects.memory.epochsList, { guildId: '1', limit: 201 }, 'limit'],
      [Subjects.memory.forget, { userId: '1' }, 'guildId'],
      [Subjects.memory.highlightAdd, { guildId: '1', channelId: '2', messageId: 'x' }, 'messageId'],
      [
        Subjects.memory.context,
        { guildId: '1', channelId: '2', strategy: 'live', maxTokens: -1 },
        'maxTokens',
      ],
      [Subjects.memory.context, { guildId: '1', channelId: '2', strategy: 'deep' }, 'strategy'],
    ] as const) {
      expect(await refused(subj, body)).toEqual([field]);
    }
    const g = h.guild();
    for (let i = 0; i < 60; i++) await g.say(general, alice, `bulk message ${i} about widgets`);
    await h.waitForCount(g.guildId, alice, 60);
    expect((await search(g.guildId, 'widgets', { k: 50 })).hits).toHaveLength(50);
    expect((await search(g.guildId, 'widgets')).hits).toHaveLength(8);
  });
});
