import { Subjects, type MemoryDossier, type MemoryEpoch } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { MemoryHarness, type TestGuild } from './harness';
import { dossiersHolding, layersHolding, startEchoModel, type EchoModel } from './echo-model';

jest.setTimeout(90_000);

const SECRET = 'Zanzibar';

/**
 * A deletion and a `forget` reach every layer written from the messages: with a model that
 * writes summaries, topics, lore and dossier bodies word for word from what it is given,
 * a closed epoch that quoted the message, the lore its summary named and a consolidated
 * dossier hold the text — and within 10 s none does (nor search, nor the epoch's event).
 */
describe('deletion and forget reach every layer', () => {
  let model: EchoModel;
  let h: MemoryHarness;
  beforeAll(async () => {
    model = await startEchoModel();
    h = await MemoryHarness.start({
      DIRIGENT_EPOCH_GAP_MS: '1500',
      DIRIGENT_MEMORY_GATEWAY_TIMEOUT_MS: '5000',
    });
  });
  afterAll(async () => {
    await h?.stop();
    await model?.close();
  });

  /** A conversation whose closed epoch, lore and Ann's dossier all quote the secret. */
  async function remembered(g: TestGuild, channel: string, ann: string, ben: string, cat: string) {
    const now = Date.now();
    const at = (i: number) => ({ createdAt: new Date(now + i * 10).toISOString() });
    const lines: [string, string, string?][] = [
      [ann, 'morning all, coffee is ready'],
      [ben, 'the deploy pipeline is green again'],
      [ann, `I just moved to ${SECRET} with my quokka`, 'secret'],
      [cat, `wow ${SECRET} sounds amazing, send pictures`, 'cat'],
      [ann, 'the weather here is wonderful'],
      [ben, 'lunch at noon?'],
      [ann, 'sure, noon works for me'],
      [ann, 'bringing the sourdough'],
    ];
    const ids: Record<string, string> = {};
    for (const [i, [who, text, tag]] of lines.entries()) {
      const id = await g.say(channel, who, text, { ...at(i), authorName: `user-${who.slice(-4)}` });
      if (tag) ids[tag] = id;
    }
    await h.waitForCount(g.guildId, ann, 5);
    const epochs = await waitFor(
      async () => {
        const r = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
          guildId: g.guildId,
        });
        return r.epochs.reduce((n, e) => n + e.messageCount, 0) === lines.length ? r.epochs : null;
      },
      20_000,
      100,
      'the conversation to close',
    );
    const quoting = epochs.find((e) => e.summary.includes(SECRET));
    expect(quoting?.topics).toContain(SECRET.toLowerCase());
    expect(quoting?.participants).toEqual(expect.arrayContaining([ann, cat]));
    await waitFor(
      async () => (await dossiersHolding(h, g.guildId, [ann], SECRET)).length === 1,
      20_000,
      100,
      'the consolidated dossier',
    );
    const held = await layersHolding(h, g.guildId, channel, SECRET);
    expect(held).toEqual(
      expect.arrayContaining(['epoch summary', 'epoch topics', 'lore', 'epoch.closed event']),
    );
    return ids;
  }

  it('a deleted message leaves summaries, topics, lore, dossier bodies, search and the event', async () => {
    const g = h.guild();
    const channel = snowflake();
    const [ann, ben, cat] = [snowflake(), snowflake(), snowflake()];
    const ids = await remembered(g, channel, ann, ben, cat);
    // Cat's reply quotes the word too: delete both messages that hold it.
    const deletedAt = Date.now();
    await g.delete(channel, ids.secret);
    await g.delete(channel, ids.cat);
    await waitFor(
      async () =>
        (await layersHolding(h, g.guildId, channel, SECRET)).length === 0 &&
        (await dossiersHolding(h, g.guildId, [ann, cat], SECRET)).length === 0,
      10_000,
      100,
      'every layer without the deleted text',
    );
    expect(Date.now() - deletedAt).toBeLessThan(10_000);
    const { epochs } = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
      guildId: g.guildId,
    });
    // The eight messages less the two deleted (in one epoch, or two when a slow machine
    // let the silence pass mid-conversation).
    expect(epochs.reduce((n, e) => n + e.messageCount, 0)).toBe(6);
    expect(epochs.map((e) => e.summary).join(' ')).toContain('sourdough');
    const dossier = await h.ok<MemoryDossier>(Subjects.memory.dossierGet, {
      guildId: g.guildId,
      userId: ann,
    });
    expect(dossier.body).toContain('sourdough');
  });

  it('forget removes the user from participants and their words from every layer', async () => {
    const g = h.guild();
    const channel = snowflake();
    const [ann, ben, cat] = [snowflake(), snowflake(), snowflake()];
    await remembered(g, channel, cat, ben, ann);
    // `cat` (said the secret, five messages, a dossier) is forgotten; `ann` quoted it once.
    const started = Date.now();
    const r = await h.ok<{ removed: number }>(Subjects.memory.forget, {
      guildId: g.guildId,
      userId: cat,
    });
    expect(r.removed).toBeGreaterThanOrEqual(5);
    await g.delete(channel, (await idOf(h, g.guildId, SECRET, ann))!);
    await waitFor(
      async () => (await layersHolding(h, g.guildId, channel, SECRET, cat)).length === 0,
      10_000,
      100,
      'every layer without the forgotten user',
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    const { epochs } = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
      guildId: g.guildId,
    });
    expect(epochs.flatMap((e) => e.participants)).not.toContain(cat);
    expect(epochs.flatMap((e) => e.participants)).toContain(ben);
    const dossier = await h.ok<MemoryDossier>(Subjects.memory.dossierGet, {
      guildId: g.guildId,
      userId: cat,
    });
    expect(dossier).toMatchObject({ body: '', messageCount: 0 });
  });
});

/** The id of the archived message by `authorId` that holds `text`. */
async function idOf(h: MemoryHarness, guildId: string, text: string, authorId: string) {
  const r = await h.ok<{ hits: { messageId?: string; authorId?: string }[] }>(
    Subjects.memory.search,
    { guildId, query: text, layers: ['archive'], authorId },
  );
  return r.hits[0]?.messageId;
}
