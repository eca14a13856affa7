import {
  RouterEventTypes,
  subject,
  Subjects,
  type MemoryEpoch,
  type MemoryHit,
  type MemorySearchResult,
} from '@dirigent/contracts';
import { EntityManager } from '@mikro-orm/postgresql';
import { snowflake, waitFor } from '@dirigent/testing';
import { sql } from '../adapters/postgres/sql';
import { MemoryHarness } from './harness';

jest.setTimeout(90_000);

const search = (h: MemoryHarness, guildId: string, query: string, layers: string[]) =>
  h.ok<MemorySearchResult>(Subjects.memory.search, { guildId, query, layers, k: 50 });

const highlightOf = (hits: MemoryHit[], messageId: string) =>
  hits.find((x) => x.messageId === messageId);

/** Offline (no model): moments and lore come from the room, through the reactor's batch. */
describe('moments from the room, at the epoch close', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await MemoryHarness.start({
      DIRIGENT_EPOCH_GAP_MS: '1500',
      DIRIGENT_MEMORY_SILENCE_MS: '1000',
      DIRIGENT_MEMORY_MOMENT_BATCH: '1000',
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('a phrase three different people repeat becomes lore; two are not enough; deleting one drops it', async () => {
    const g = h.guild();
    const [general, random] = [snowflake(), snowflake()];
    const [ann, ben, cat] = [snowflake(), snowflake(), snowflake()];
    const now = Date.now();
    // Dated ahead, so that every message is in before the silence closes the epochs.
    const at = (i: number) => ({ createdAt: new Date(now + 3000 + i * 10).toISOString() });
    await g.say(general, ann, "honestly it's always DNS", at(0));
    await g.say(general, ben, 'pizza on friday sounds right', at(1));
    await g.say(general, ben, 'the VPN died, and yes: its always dns', at(2));
    await g.say(random, ann, 'pizza on friday then', at(3));
    const third = await g.say(random, cat, "It's always DNS. Always.", at(4));
    await h.waitForCount(g.guildId, cat, 1);
    const lore = await waitFor(
      async () => {
        const r = await search(h, g.guildId, 'always dns', ['lore']);
        return r.hits.length ? r.hits : null;
      },
      // Both channels' epochs must close and their batches run; on a loaded CI
      // machine that has taken over 20 s.
      60_000,
      100,
      'the phrase to become lore',
    );
    expect(lore.map((x) => x.text)).toEqual([
      'Recurring phrase in the group: "its always dns" (said by 3 people)',
    ]);
    const pizza = await search(h, g.guildId, 'pizza friday', ['lore']);
    expect(pizza.hits).toEqual([]);

    await g.delete(random, third);
    await waitFor(
      async () => (await search(h, g.guildId, 'always dns', ['lore'])).hits.length === 0,
      10_000,
      100,
      'the lore drawn on the deleted message to go',
    );
  });

  it('forget drops the lore of phrases they said and of phrases naming them, for good', async () => {
    const g = h.guild();
    const [general, random] = [snowflake(), snowflake()];
    const [ann, ben, cat, dan] = [snowflake(), snowflake(), snowflake(), snowflake()];
    const now = Date.now();
    const at = (i: number, authorName: string) => ({
      createdAt: new Date(now + 3000 + i * 10).toISOString(),
      authorName,
    });
    await g.say(general, ann, 'well, the coffee machine strikes again', at(0, 'Ann'));
    await g.say(general, ben, 'coffee machine strikes again, classic', at(1, 'Ben'));
    await g.say(random, cat, 'the coffee machine strikes again!!', at(2, 'Catriona'));
    await g.say(general, ann, 'Catriona broke the build again', at(3, 'Ann'));
    await g.say(random, ben, 'lol catriona broke the build again', at(4, 'Ben'));
    await g.say(random, dan, 'guess what: Catriona broke the build again', at(5, 'Dan'));
    await h.waitForCount(g.guildId, dan, 1);
    const phraseLore = async () =>
      (await search(h, g.guildId, 'coffee machine strikes catriona broke build', ['lore'])).hits
        .map((x) => x.text)
        .sort();
    await waitFor(
      async () => (await phraseLore()).length === 2,
      60_000,
      100,
      'both phrases to become lore',
    );
    expect((await phraseLore()).join(' ')).toContain('catriona broke the build again');

    const started = Date.now();
    await h.ok(Subjects.memory.forget, { guildId: g.guildId, userId: cat });
    const phraseRows = () =>
      sql(
        h.app!.get(EntityManager).fork(),
        `select phrase, occurrences from memory_phrase where guild_id = ?`,
        [g.guildId],
      );
    await waitFor(
      async () => (await phraseLore()).length === 0,
      10_000,
      100,
      'the lore they said and the lore naming them to go',
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    const left = JSON.stringify(await phraseRows());
    expect(left).not.toContain(cat);
    expect(left).not.toContain('catriona');
    expect(left).toContain('coffee machine');

    // A later batch (another epoch closing) coalesces what remains: neither comes back.
    const epochs = async () =>
      (await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, { guildId: g.guildId }))
        .epochs.length;
    const before = await epochs();
    await g.say(general, dan, 'the coffee machine strikes again, I give up', {
      createdAt: new Date(Date.now() + 1000).toISOString(),
    });
    await waitFor(async () => (await epochs()) > before, 60_000, 100, 'a later epoch to close');
    const coffee = await waitFor(
      async () => {
        const lore = await phraseLore();
        return lore.length ? lore : null;
      },
      30_000,
      100,
      'the phrase three people still say to be lore again',
    );
    // What three others still say comes back; nothing names her.
    expect(coffee).toEqual([
      'Recurring phrase in the group: "broke the build again" (said by 3 people)',
      'Recurring phrase in the group: "coffee machine strikes again" (said by 3 people)',
    ]);
    expect(JSON.stringify(await phraseRows())).not.toContain('catriona');
  });

  it('a message deleted while the batch read it is redacted from its phrases and lore', async () => {
    const g = h.guild();
    const channel = snowflake();
    const [ann, ben, cat] = [snowflake(), snowflake(), snowflake()];
    const now = Date.now();
    const at = (i: number) => ({ createdAt: new Date(now + 3000 + i * 10).toISOString() });
    await g.say(channel, ann, 'the printer jammed again today', at(0));
    await g.say(channel, ben, 'printer jammed again, send help', at(1));
    const raced = await g.say(channel, cat, 'my printer jammed again too', at(2));
    await h.waitForCount(g.guildId, cat, 1);
    // The deletion's tombstone committed after the batch read the message (its row stays
    // readable, as it was for the batch), before the batch wrote phrases and lore.
    const em = h.app!.get(EntityManager).fork();
    await sql(em, `insert into memory_tombstone (guild_id, message_id) values (?, ?)`, [
      g.guildId,
      raced,
    ]);
    const job = await waitFor(
      async () => {
        const [row] = await sql(
          em,
          `select message_ids, done_at from memory_redaction where guild_id = ? and id like 'moments:%'`,
          [g.guildId],
        );
        return row?.done_at ? row : null;
      },
      60_000,
      100,
      'the batch to redact the raced message',
    );
    expect(job.message_ids).toEqual([raced]);
    expect((await search(h, g.guildId, 'printer jammed', ['lore'])).hits).toEqual([]);
    const phrases = await sql(em, `select occurrences from memory_phrase where guild_id = ?`, [
      g.guildId,
    ]);
    expect(phrases.length).toBeGreaterThan(0);
    expect(JSON.stringify(phrases)).not.toContain(raced);
  });

  it('the batch keeps what the reply graph and the silence after a message say', async () => {
    const g = h.guild();
    const channel = snowflake();
    const [ann, ben, cat, dan] = [snowflake(), snowflake(), snowflake(), snowflake()];
    const now = Date.now();
    // Dated ahead, so that the reactions are in before the silence closes the epoch.
    const at = (i: number) => ({ createdAt: new Date(now + 3000 + i * 10).toISOString() });
    const take = await g.say(channel, ann, 'tabs are objectively better than spaces', at(0));
    const reply = await g.say(channel, ben, 'absolutely not', {
      ...at(1),
      replyToMessageId: take,
    });
    await g.say(channel, cat, 'ben is right here', { ...at(2), replyToMessageId: reply });
    await g.react(channel, take, dan);
    await g.react(channel, take, cat);
    const last = await g.say(
      channel,
      dan,
      'after twenty years of writing software I have learned that formatting debates never end and nobody ever changes their mind',
      at(3),
    );
    // At ingest neither is a highlight (one reply, two reactions; no reaction at all).
    await h.waitForCount(g.guildId, dan, 1);
    await waitFor(
      async () => {
        const r = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
          guildId: g.guildId,
        });
        return r.epochs.length === 1;
      },
      20_000,
      100,
      'the epoch to close',
    );
    const hits = await waitFor(
      async () => {
        const r = await search(h, g.guildId, 'tabs spaces formatting debates', ['highlights']);
        return highlightOf(r.hits, take) && highlightOf(r.hits, last) ? r.hits : null;
      },
      10_000,
      100,
      'the batch to keep both moments',
    );
    expect(highlightOf(hits, take)?.text).toBe('tabs are objectively better than spaces');
    expect(highlightOf(hits, last)?.text).toContain('formatting debates never end');
    expect(highlightOf(hits, reply)).toBeUndefined();
  });
});

describe('moments from the room, when enough messages arrived', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await MemoryHarness.start({
      DIRIGENT_EPOCH_GAP_MS: '600000',
      DIRIGENT_MEMORY_MOMENT_BATCH: '4',
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('arms the channel’s batch (a durable timer) at the configured count, before any epoch closes', async () => {
    const g = h.guild();
    const channel = snowflake();
    const [ann, ben, cat] = [snowflake(), snowflake(), snowflake()];
    // Said now: the channel's epoch is far from closing.
    const now = () => ({ createdAt: new Date().toISOString() });
    const take = await g.say(channel, ann, 'pineapple belongs on pizza', now());
    const reply = await g.say(channel, ben, 'no it does not', {
      ...now(),
      replyToMessageId: take,
    });
    await g.say(channel, cat, 'ben speaks the truth', { ...now(), replyToMessageId: reply });
    await g.react(channel, take, cat);
    await g.react(channel, take, ben);
    // The fourth message makes the batch due: the reactions are in by then.
    await h.waitForCount(g.guildId, cat, 1);
    await new Promise((r) => setTimeout(r, 500));
    await g.say(channel, ann, 'fine, agree to disagree', now());
    await waitFor(
      async () => {
        const r = await search(h, g.guildId, 'pineapple pizza', ['highlights']);
        return !!highlightOf(r.hits, take);
      },
      10_000,
      100,
      'the batch to keep the moment',
    );
    const { epochs } = await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
      guildId: g.guildId,
    });
    expect(epochs).toEqual([]);
  });
});

describe('moments of a finished exchange (a router decision)', () => {
  let h: MemoryHarness;
  beforeAll(async () => {
    h = await MemoryHarness.start({
      DIRIGENT_EPOCH_GAP_MS: '600000',
      DIRIGENT_MEMORY_MOMENT_BATCH: '1000',
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('keeps the exchange’s moments when the router publishes its decision', async () => {
    const g = h.guild();
    const channel = snowflake();
    const [ann, ben, cat] = [snowflake(), snowflake(), snowflake()];
    const now = () => ({ createdAt: new Date().toISOString() });
    const take = await g.say(channel, ann, 'dark mode is a personality trait', now());
    const reply = await g.say(channel, ben, 'it really is', { ...now(), replyToMessageId: take });
    await g.say(channel, cat, 'speak for yourself', { ...now(), replyToMessageId: reply });
    await g.react(channel, take, cat);
    await g.react(channel, take, ben);
    await h.waitForCount(g.guildId, cat, 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(highlightOf((await search(h, g.guildId, 'dark mode', ['highlights'])).hits, take)).toBe(
      undefined,
    );
    await h.messaging.publishEvent(
      subject.routerEvent(g.guildId, channel, 'decision'),
      RouterEventTypes.decision,
      { decisionId: 'd-1', guildId: g.guildId, channelId: channel, inboundMessageId: take },
    );
    await waitFor(
      async () => {
        const r = await search(h, g.guildId, 'dark mode', ['highlights']);
        return !!highlightOf(r.hits, take);
      },
      10_000,
      100,
      'the exchange’s moment',
    );
  });
});
