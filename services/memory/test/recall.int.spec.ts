import { Subjects, type MemorySearchResult } from '@dirigent/contracts';
import { snowflake } from '@dirigent/testing';
import { MemoryHarness, type TestGuild } from './harness';

jest.setTimeout(90_000);

const DAY = 86_400_000;

let h: MemoryHarness;
beforeAll(async () => {
  h = await MemoryHarness.start();
});
afterAll(async () => {
  await h?.stop();
});

const people = { tom: snowflake(), ana: snowflake(), kofi: snowflake() };
const names: Record<string, string> = {
  [people.tom]: 'Tom',
  [people.ana]: 'Ana',
  [people.kofi]: 'Kofi',
};
const channels = { general: snowflake(), hobbies: snowflake() };

/** A month of the current year before now, or of last year (as "in August" means). */
function monthAgo(month: number, day: number): number {
  const now = new Date();
  const year = Date.UTC(now.getUTCFullYear(), month, day) < now.getTime() - DAY ? 0 : 1;
  return Date.UTC(now.getUTCFullYear() - year, month, day, 15);
}

/**
 * Months of conversation among three friends in two channels, with chatter between the
 * answers; returns the ids of the lines the questions are about.
 */
async function converse(g: TestGuild) {
  let at = Date.now() - 200 * DAY;
  const ids: Record<string, string> = {};
  const counts = new Map<string, number>();
  const say = async (who: string, channel: string, text: string, key?: string, when?: number) => {
    at = when ?? at + 5 * 60_000;
    const id = await g.say(channel, who, text, {
      authorName: names[who],
      createdAt: new Date(at).toISOString(),
    });
    if (key) ids[key] = id;
    counts.set(who, (counts.get(who) ?? 0) + 1);
  };
  const chatter = async (n: number, channel = channels.general) => {
    const lines = ['how was your week?', 'that sounds great', 'long day at work', 'haha yes'];
    for (let i = 0; i < n; i++) {
      await say([people.tom, people.ana, people.kofi][i % 3], channel, lines[i % lines.length]);
    }
  };
  await chatter(6);
  await say(
    people.tom,
    channels.hobbies,
    'dug my old brushes out of the attic, back to painting every evening',
    'painting',
  );
  await chatter(4, channels.hobbies);
  at += 30 * DAY;
  await say(people.ana, channels.general, 'did you get the puppy from the shelter in the end?');
  await say(
    people.tom,
    channels.general,
    'we did, her name is Biscuit and she sleeps on my feet',
    'biscuit',
  );
  await chatter(6);
  await say(people.kofi, channels.general, 'the shelter near me has so many puppies, I want one');
  await say(
    people.ana,
    channels.hobbies,
    'we are relocating to Lisbon next month, boxes everywhere',
    'ana-move',
  );
  await say(people.kofi, channels.hobbies, 'my brother is relocating to Denver for work');
  await chatter(5, channels.hobbies);
  await say(
    people.tom,
    channels.general,
    'I could not put down a mystery set in Venice',
    'book-march',
    monthAgo(2, 10),
  );
  await chatter(4);
  await say(
    people.tom,
    channels.general,
    'book club picked a memoir by a mountain climber, halfway through',
    'book-august',
    monthAgo(7, 12),
  );
  await chatter(4);
  // Recent chatter that shares words with the questions but answers none of them.
  at = Date.now() - 2 * DAY;
  await say(people.tom, channels.general, 'painting the fence this weekend, what a chore');
  await say(people.kofi, channels.general, 'reading is hard with a puppy in the house');
  await chatter(6);
  return { ids, counts };
}

describe('memory search recall over NATS', () => {
  let g: TestGuild;
  let ids: Record<string, string>;
  const top = async (query: string, k = 5) => {
    const r = await h.ok<MemorySearchResult>(Subjects.memory.search, {
      guildId: g.guildId,
      query,
      k,
    });
    return r.hits.map((x) => x.messageId);
  };

  beforeAll(async () => {
    g = h.guild();
    const said = await converse(g);
    ids = said.ids;
    for (const [id, n] of said.counts) await h.waitForCount(g.guildId, id, n, 30_000);
  });

  it('finds months-old evidence for a paraphrased question naming the person', async () => {
    expect(await top('When did Tom start painting again?', 3)).toContain(ids.painting);
  });

  it('finds an answer whose topic is in the turn before it', async () => {
    expect(await top('What is the name of the puppy Tom got from the shelter?', 3)).toContain(
      ids.biscuit,
    );
  });

  it('lifts the person the question names over others saying the same', async () => {
    const hits = await top('Where is Ana relocating?', 3);
    expect(hits[0]).toBe(ids['ana-move']);
  });

  it('lifts what falls in the month the question names', async () => {
    const hits = await top('What was Tom reading in August?', 5);
    expect(hits).toContain(ids['book-august']);
    const march = hits.indexOf(ids['book-march']);
    if (march >= 0) expect(hits.indexOf(ids['book-august'])).toBeLessThan(march);
  });

  it('keeps explicit filters hard: author, channel, time', async () => {
    const r = await h.ok<MemorySearchResult>(Subjects.memory.search, {
      guildId: g.guildId,
      query: 'relocating',
      authorId: people.kofi,
    });
    expect(r.hits.length).toBeGreaterThan(0);
    expect(r.hits.every((x) => x.authorId === people.kofi)).toBe(true);
    expect(r.hits[0].text).toContain('Denver');
    const recent = await h.ok<MemorySearchResult>(Subjects.memory.search, {
      guildId: g.guildId,
      query: 'painting',
      since: new Date(Date.now() - 10 * DAY).toISOString(),
    });
    expect(recent.hits.every((x) => Date.parse(x.at) >= Date.now() - 10 * DAY)).toBe(true);
  });

  it('never returns a deleted message', async () => {
    await g.delete(channels.general, ids.biscuit);
    const gone = async () => !(await top('puppy shelter Biscuit name', 10)).includes(ids.biscuit);
    for (let i = 0; i < 50 && !(await gone()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await gone()).toBe(true);
  });
});
