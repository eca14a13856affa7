import { CONTEXT_STRATEGIES } from '@dirigent/contracts';
import fc from 'fast-check';
import { assembleContext } from '../assemble';
import { countTokens } from '../tokens';
import {
  ALICE,
  BOB,
  BOT,
  GENERAL,
  GUILD,
  MemoryWorld,
  message,
  OTHER_GUILD,
  RANDOM,
  T0,
} from '../../testing/memory-world';
import { LENSES, lensFor, type LensRequest } from './index';

const MIN = 60_000;
const WEEK = 7 * 86_400_000;

function world(): MemoryWorld {
  const w = new MemoryWorld();
  for (let i = 0; i < 30; i++) {
    w.add(
      GUILD,
      message(
        GENERAL,
        i % 2 ? ALICE : BOB,
        `general chat line ${i} about rust builds`,
        T0 - (60 - i) * MIN,
      ),
    );
  }
  for (let i = 0; i < 10; i++) {
    w.add(
      GUILD,
      message(RANDOM, BOB, `random musing ${i} on sourdough baking`, T0 - (20 - i) * MIN),
    );
  }
  w.add(
    GUILD,
    message(RANDOM, ALICE, 'anyone know a good sourdough starter?', T0 - 2 * 60 * MIN),
    message(GENERAL, BOT, 'rust is just C++ wearing a seatbelt', T0 - 90 * MIN, {
      reactionCount: 5,
      replyCount: 2,
    }),
    message(GENERAL, ALICE, 'no, rust is overrated for scripts', T0 - 5 * WEEK),
    message(GENERAL, BOB, 'actually rust builds are fine, I disagree', T0 - 5 * WEEK + MIN),
    message(GENERAL, ALICE, 'last week same hour we argued about tabs', T0 - WEEK + 5 * MIN),
    {
      layer: 'dossiers',
      id: 'd-alice',
      authorId: ALICE,
      authorName: 'Alice',
      text: 'likes rust, lives in Paris',
      at: T0 - 86_400_000,
    },
    {
      layer: 'lore',
      id: 'lore-1',
      text: 'Bob and Alice argue about rust every week',
      at: T0 - 86_400_000,
    },
    {
      layer: 'epochs',
      id: 'ep-1',
      channelId: GENERAL,
      text: 'A long debate about build times.',
      at: T0 - 3 * 86_400_000,
    },
    {
      layer: 'highlights',
      id: 'h-1',
      channelId: GENERAL,
      authorId: BOT,
      text: 'rust is just C++ wearing a seatbelt',
      at: T0 - 90 * MIN,
    },
  );
  w.add(OTHER_GUILD, message(GENERAL, ALICE, 'secret of another guild about rust', T0 - MIN));
  return w;
}

const req = (over: Partial<LensRequest> = {}): LensRequest => ({
  guildId: GUILD,
  channelId: GENERAL,
  presentUserIds: [],
  now: T0,
  seed: 42,
  liveWindow: 40,
  ...over,
});

/** The wire's list (libs/contracts) is the registry's, in order. */
const CANONICAL = [...CONTEXT_STRATEGIES];

describe('the lens registry', () => {
  it('has the 17 D.I.T. strategies, each once', () => {
    expect(LENSES.map((l) => l.id)).toEqual(CANONICAL);
    expect(lensFor('bogus')).toBeUndefined();
  });

  it.each(CANONICAL)('%s never returns another guild’s data and fits any budget', async (id) => {
    const sections = await lensFor(id)!.assemble(req({ topic: 'rust builds' }), world());
    const all = sections.flatMap((s) => s.items);
    expect(all.some((i) => i.text.includes('another guild'))).toBe(false);
    for (const max of [0, 20, 200, 4000]) {
      const ctx = assembleContext(sections, max);
      expect(ctx.tokens).toBeLessThanOrEqual(max);
      expect(ctx.tokens).toBe(countTokens(ctx.text));
    }
  });
});

describe('lenses', () => {
  it('none: nothing', async () => {
    expect(await lensFor('none')!.assemble(req(), world())).toEqual([]);
  });

  it("narrow-live: the current channel's last 5, oldest first", async () => {
    const [live] = await lensFor('narrow-live')!.assemble(req(), world());
    expect(live.items.map((i) => i.text)).toEqual(
      [25, 26, 27, 28, 29].map((i) => `general chat line ${i} about rust builds`),
    );
  });

  it('live: guild-wide and channel-tagged; a tight budget keeps the current channel', async () => {
    const sections = await lensFor('live')!.assemble(req(), world());
    const channels = new Set(sections[0].items.map((i) => i.channelId));
    expect(channels).toEqual(new Set([GENERAL, RANDOM]));
    expect(sections[0].items).toHaveLength(40);
    const tight = assembleContext(sections, 120);
    const kept = tight.sections[0].items;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.filter((i) => i.channelId === GENERAL).length).toBeGreaterThan(kept.length / 2);
    expect(tight.text).toContain(`[#${GENERAL}] Alice: general chat line 29 about rust builds`);
  });

  it('live+dossiers / live+lore / live+lore+dossiers add their layers', async () => {
    const layers = async (id: string) =>
      (await lensFor(id)!.assemble(req({ presentUserIds: [ALICE] }), world())).map((s) => s.layer);
    expect(await layers('live+dossiers')).toEqual(['dossiers', 'live']);
    expect(await layers('live+lore')).toEqual(['lore', 'live']);
    expect(await layers('live+lore+dossiers')).toEqual(['lore', 'dossiers', 'live']);
  });

  it('archive-person-deep: the focus user’s own words and dossier only', async () => {
    const sections = await lensFor('archive-person-deep')!.assemble(
      req({ focusUserId: ALICE, topic: 'rust' }),
      world(),
    );
    const archive = sections.find((s) => s.layer === 'archive')!;
    expect(archive.items.every((i) => i.authorId === ALICE)).toBe(true);
    expect(sections.find((s) => s.layer === 'dossiers')!.items[0].id).toBe('d-alice');
  });

  it('epochs-only: summaries, no raw messages', async () => {
    const sections = await lensFor('epochs-only')!.assemble(req(), world());
    expect(sections.map((s) => s.layer)).toEqual(['epochs']);
  });

  it('time-shifted: the same channel around this hour in past weeks', async () => {
    const [past] = await lensFor('time-shifted')!.assemble(req(), world());
    expect(past.items.map((i) => i.text)).toEqual(['last week same hour we argued about tabs']);
  });

  it('cross-channel-similar: other channels only', async () => {
    const sections = await lensFor('cross-channel-similar')!.assemble(
      req({ topic: 'sourdough baking' }),
      world(),
    );
    const found = sections.filter((s) => s.layer !== 'live').flatMap((s) => s.items);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((i) => i.channelId === RANDOM)).toBe(true);
  });

  it('contrasting: disagreement from both sides', async () => {
    const [contrast] = await lensFor('contrasting')!.assemble(
      req({ topic: 'rust overrated', presentUserIds: [ALICE, BOB] }),
      world(),
    );
    expect(new Set(contrast.items.map((i) => i.authorId))).toEqual(new Set([ALICE, BOB]));
  });

  it('serendipity: the same seed gives the same sample', async () => {
    const a = await lensFor('serendipity')!.assemble(req({ seed: 7 }), world());
    const b = await lensFor('serendipity')!.assemble(req({ seed: 7 }), world());
    expect(a[0].items.map((i) => i.text)).toEqual(b[0].items.map((i) => i.text));
  });

  it('unanswered: the question nobody answered', async () => {
    const [open] = await lensFor('unanswered')!.assemble(req(), world());
    expect(open.items.map((i) => i.text)).toEqual(['anyone know a good sourdough starter?']);
  });

  it('bot-history: the bot’s turns with how they landed', async () => {
    const sections = await lensFor('bot-history')!.assemble(req(), world());
    expect(assembleContext(sections, 500).text).toContain(
      'rust is just C++ wearing a seatbelt [5 reactions, 2 replies]',
    );
  });

  it('callback-primed and full-rich: highlights verbatim; full-rich has every layer', async () => {
    const cb = await lensFor('callback-primed')!.assemble(req({ topic: 'rust seatbelt' }), world());
    expect(cb[0].layer).toBe('highlights');
    expect(cb[0].items[0].text).toBe('rust is just C++ wearing a seatbelt');
    const rich = await lensFor('full-rich')!.assemble(
      req({ presentUserIds: [ALICE], topic: 'rust' }),
      world(),
    );
    expect(new Set(rich.map((s) => s.layer))).toEqual(
      new Set(['epochs', 'lore', 'dossiers', 'archive', 'highlights', 'live']),
    );
  });
});

describe('assembly', () => {
  it('keeps the heaviest items within any budget, in the lens order', async () => {
    const sections = await lensFor('full-rich')!.assemble(
      req({ presentUserIds: [ALICE], topic: 'rust' }),
      world(),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3000 }), async (max) => {
        const ctx = assembleContext(sections, max);
        expect(ctx.tokens).toBeLessThanOrEqual(max);
        const order = sections.map((s) => s.layer);
        const got = ctx.sections.map((s) => s.layer);
        expect(got).toEqual(order.filter((l) => got.includes(l)));
      }),
      { numRuns: 50 },
    );
  });
});
