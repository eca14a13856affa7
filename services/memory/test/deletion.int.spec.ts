import {
  Subjects,
  type MemoryDossier,
  type MemoryEpoch,
  type MemorySearchResult,
} from '@dirigent/contracts';
import { EntityManager } from '@mikro-orm/postgresql';
import { ArchiveIndex } from '../adapters/archive-index';
import { ClosingStore } from '../adapters/postgres/closing.store';
import { sql } from '../adapters/postgres/sql';
import { snowflake, waitFor } from '@dirigent/testing';
import { MemoryHarness, type TestGuild } from './harness';
import type { Seen } from '../../llm-gateway/test/fake-upstreams';
import {
  dossiersHolding,
  echoAnswer,
  layersHolding,
  startEchoModel,
  type EchoModel,
} from './echo-model';

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
  const env = { DIRIGENT_EPOCH_GAP_MS: '1500', DIRIGENT_MEMORY_GATEWAY_TIMEOUT_MS: '5000' };
  beforeAll(async () => {
    model = await startEchoModel();
    h = await MemoryHarness.start(env);
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
    // The epoch's event is published after its row commits (and marked published then).
    const expected = ['epoch summary', 'epoch topics', 'lore', 'epoch.closed event'];
    await waitFor(
      async () => {
        const held = await layersHolding(h, g.guildId, channel, SECRET);
        return expected.every((l) => held.includes(l));
      },
      10_000,
      100,
      'the secret in the summary, topics, lore and the epoch.closed event',
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

  it("forget takes the user's name and words out of others' dossier bodies and summaries", async () => {
    const g = h.guild();
    const [channel, elsewhere] = [snowflake(), snowflake()];
    const [dora, ben] = [snowflake(), snowflake()];
    const quote = 'my grandmother taught me to bake rye bread';
    const now = Date.now();
    let i = 0;
    const at = () => ({ createdAt: new Date(now + i++ * 10).toISOString() });
    await g.say(channel, dora, quote, { ...at(), authorName: 'Dorabella' });
    await g.say(channel, dora, 'see you all on friday', { ...at(), authorName: 'Dorabella' });
    const bens: [string, string][] = [
      [channel, 'had lunch with Dorabella at the harbour'],
      [channel, `Dorabella said ${quote}`],
      [channel, 'thanks <@' + dora + '> for the recipe'],
      [elsewhere, 'my sourdough starter is alive'],
      [elsewhere, 'heard Dorabella is moving to Tromsø next spring'],
      [elsewhere, 'the ferry was late again'],
    ];
    for (const [ch, text] of bens) {
      await g.say(ch, ben, text, { ...at(), authorName: 'Benedikt' });
    }
    await h.waitForCount(g.guildId, ben, bens.length);
    const epochs = async () =>
      (await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, { guildId: g.guildId }))
        .epochs;
    const summaries = async () =>
      (await epochs()).map((e) => `${e.summary} ${e.topics.join(' ')}`).join(' | ');
    // Every message in a closed epoch: a close that has not started yet would write later,
    // from Ben's words, a summary naming her again.
    await waitFor(
      async () =>
        (await dossiersHolding(h, g.guildId, [ben], 'Dorabella')).length === 1 &&
        (await epochs()).reduce((n, e) => n + e.messageCount, 0) === 2 + bens.length,
      20_000,
      100,
      "Ben's dossier and both channels' summaries naming Dorabella",
    );
    expect(
      new Set(
        (await epochs()).filter((e) => e.summary.includes('Dorabella')).map((e) => e.channelId),
      ).size,
    ).toBe(2);
    const started = Date.now();
    await h.ok(Subjects.memory.forget, { guildId: g.guildId, userId: dora });
    const trace = ['Dorabella', 'grandmother taught me', dora];
    await waitFor(
      async () => {
        const text = await summaries();
        for (const needle of trace) {
          if (text.includes(needle)) return false;
          if ((await dossiersHolding(h, g.guildId, [ben], needle)).length) return false;
        }
        return true;
      },
      10_000,
      100,
      "Ben's dossier and the summaries without Dorabella",
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    const body = (
      await h.ok<MemoryDossier>(Subjects.memory.dossierGet, { guildId: g.guildId, userId: ben })
    ).body;
    expect(body).toContain('sourdough');
    expect(body).toContain('lunch with someone');
    expect(await summaries()).toContain('someone is moving to Tromsø');
    // The finished job keeps neither their names nor the hashes of what they said.
    const jobs = await waitFor(
      async () => {
        const rows = await sql(
          h.app!.get(EntityManager).fork(),
          `select names, quotes, done_at from memory_redaction where user_id = ?`,
          [dora],
        );
        return rows.length && rows.every((r) => r.done_at) ? rows : null;
      },
      10_000,
      100,
      'the forget job done',
    );
    expect(jobs.map((r) => [r.names, r.quotes])).toEqual([[[], []]]);
  });

  it('forget reaches the epoch of a close that was summarising when it came', async () => {
    const g = h.guild();
    const channel = snowflake();
    const [eve, ben] = [snowflake(), snowflake()];
    const held = (s: Seen) =>
      JSON.stringify(s.body).includes('Summarise') && JSON.stringify(s.body).includes('Evangelina');
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    model.upstream.behave = (s) => ({
      kind: 'hold',
      until: held(s) ? released : Promise.resolve(),
      then: { kind: 'ok', text: echoAnswer(s) },
    });
    try {
      const at = (i: number) => new Date(Date.now() + i * 10).toISOString();
      await g.say(channel, eve, 'the kayak is back in the shed', {
        createdAt: at(0),
        authorName: 'Evangelina',
      });
      await g.say(channel, ben, 'Evangelina lent me her kayak', {
        createdAt: at(1),
        authorName: 'Benedikt',
      });
      // The close has read the conversation and waits for its summary.
      await waitFor(() => model.upstream.seen.some(held), 20_000, 50, 'the held summary');
      const forgetting = h.ok(Subjects.memory.forget, { guildId: g.guildId, userId: eve });
      await waitFor(
        async () =>
          (
            await sql(
              h.app!.get(EntityManager).fork(),
              `select 1 from memory_redaction where user_id = ?`,
              [eve],
            )
          ).length > 0,
        10_000,
        50,
        'the forget recorded',
      );
      release();
      await forgetting;
    } finally {
      release();
      model.upstream.behave = (s) => ({ kind: 'ok', text: echoAnswer(s) });
    }
    await waitFor(
      async () => {
        const { epochs } = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
          guildId: g.guildId,
        });
        const text = JSON.stringify(epochs);
        return (
          text.includes('someone lent me her kayak') &&
          !/Evangelina|kayak is back/.test(text) &&
          !text.includes(eve)
        );
      },
      10_000,
      100,
      'the epoch without Evangelina',
    );
  });
  it('a forget waits for a close another replica is running in the guild', async () => {
    const g = h.guild();
    const fay = snowflake();
    await g.say(snowflake(), fay, 'my new flat looks over the harbour');
    await h.waitForCount(g.guildId, fay, 1);
    // Another replica's close, as it records itself before reading its channel.
    const closing = h.app!.get(ClosingStore);
    const running = await closing.begin(g.guildId, snowflake());
    const forgetting = h.ok(Subjects.memory.forget, { guildId: g.guildId, userId: fay });
    const job = () =>
      sql(
        h.app!.get(EntityManager).fork(),
        `select done_at from memory_redaction where user_id = ?`,
        [fay],
      );
    await waitFor(async () => (await job()).length > 0, 10_000, 50, 'the forget recorded');
    await new Promise((r) => setTimeout(r, 500));
    expect((await job())[0].done_at).toBeNull();
    await running.end();
    await forgetting;
    expect((await job())[0].done_at).not.toBeNull();
  });
  it('a forget is done within 10 s when a replica was killed in the middle of a close', async () => {
    const g = h.guild();
    const gus = snowflake();
    await g.say(snowflake(), gus, 'my sister runs the bakery on the corner');
    await h.waitForCount(g.guildId, gus, 1);
    // A close of a replica SIGKILLed just now: its row stays and nothing renews it.
    await sql(
      h.app!.get(EntityManager).fork(),
      `insert into memory_epoch_closing (id, guild_id, channel_id) values (gen_random_uuid(), ?, ?)`,
      [g.guildId, snowflake()],
    );
    const job = () =>
      sql(
        h.app!.get(EntityManager).fork(),
        `select done_at from memory_redaction where user_id = ?`,
        [gus],
      );
    await h.ok(Subjects.memory.forget, { guildId: g.guildId, userId: gus });
    await waitFor(
      async () => (await job())[0]?.done_at != null,
      10_000,
      100,
      'the forget done although the dead close never ended',
    );
  });
});

describe('after a restart', () => {
  let h: MemoryHarness;
  afterAll(async () => {
    await h?.stop();
  });

  it("the archive's word index loaded again holds no deleted or forgotten message", async () => {
    h = await MemoryHarness.start({ DIRIGENT_EPOCH_GAP_MS: '600000' });
    const g = h.guild();
    const channel = snowflake();
    const [ann, ben] = [snowflake(), snowflake()];
    const gone = await g.say(channel, ann, `my new address is 12 ${SECRET} lane`);
    await g.say(channel, ann, `${SECRET} marmalade is the best marmalade`);
    await g.say(channel, ben, `I hear ${SECRET} has lovely beaches`);
    await g.say(channel, ben, 'kept: the marmalade jar is empty');
    await h.waitForCount(g.guildId, ben, 2);
    await g.delete(channel, gone);
    await h.ok(Subjects.memory.forget, { guildId: g.guildId, userId: ben });
    await h.waitForCount(g.guildId, ann, 1);
    await h.stop();
    h = await MemoryHarness.start({ DIRIGENT_EPOCH_GAP_MS: '600000' });
    const index = await waitFor(
      () => h.app!.get(ArchiveIndex).get(g.guildId, 1_000),
      30_000,
      100,
      'the word index loaded',
    );
    expect(index.size).toBe(1);
    const found = (q: string) =>
      h.ok<MemorySearchResult>(Subjects.memory.search, {
        guildId: g.guildId,
        query: q,
        layers: ['archive'],
      });
    const { hits } = await found(`${SECRET} address lane beaches marmalade`);
    expect(hits.map((x) => x.text)).toEqual([`${SECRET} marmalade is the best marmalade`]);
    const rest = (await found('address lane beaches jar')).hits.map((x) => x.text);
    expect(rest.filter((t) => /address|beaches|jar/.test(t))).toEqual([]);
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
