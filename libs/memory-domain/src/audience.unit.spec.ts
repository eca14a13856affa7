import { CONTEXT_STRATEGIES } from '@dirigent/contracts';
import fc from 'fast-check';
import { contextFor, hiddenFrom, visibleWith, type ChannelAudience } from './audience';
import { LENSES, type LensRequest } from './lenses';
import { ALICE, BOB, BOT, GUILD, MemoryWorld, T0 } from '../testing/memory-world';
import type { MemoryItem } from './types';

const MIN = 60_000;
const AUTHORS = [ALICE, BOB, BOT];
const WORDS = ['rust', 'builds', 'sourdough', 'tabs', 'disagree', 'overrated', 'why', 'plan'];

/** A guild's channels: some private, some threads of an earlier channel. */
const channelsArb = fc
  .array(fc.record({ private: fc.boolean(), threadOf: fc.option(fc.nat(), { nil: undefined }) }), {
    minLength: 2,
    maxLength: 6,
  })
  .map((specs) => {
    const out: ChannelAudience[] = [];
    specs.forEach((s, i) => {
      const channelId = String(700 + i);
      const parent = i > 0 && s.threadOf !== undefined ? out[s.threadOf % i] : undefined;
      // A thread has its parent's audience; a thread of a thread is one of the root's.
      const root = parent ? (parent.parentChannelId ?? parent.channelId) : undefined;
      const rootAudience = out.find((c) => c.channelId === root)?.audience;
      out.push({
        channelId,
        audience: rootAudience ?? (s.private ? 'private' : 'public'),
        ...(root ? { parentChannelId: root } : {}),
      });
    });
    return out;
  });

/** Every layer's items, each channel's text naming it so a leak shows in the text too. */
function worldArb(channels: ChannelAudience[]) {
  const ch = fc.constantFrom(...channels.map((c) => c.channelId));
  const words = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 });
  const message = fc.record({
    channel: ch,
    author: fc.constantFrom(...AUTHORS),
    words,
    ago: fc.nat(5000),
  });
  const derived = fc.record({
    sources: fc.uniqueArray(ch, { minLength: 1, maxLength: 3 }),
    words,
    ago: fc.nat(5000),
  });
  return fc.record({
    messages: fc.array(message, { minLength: 1, maxLength: 40 }),
    epochs: fc.array(fc.record({ channel: ch, words, ago: fc.nat(5000) }), { maxLength: 6 }),
    highlights: fc.array(message, { maxLength: 6 }),
    lore: fc.array(derived, { maxLength: 5 }),
    dossiers: fc.array(derived, { maxLength: 3 }),
  });
}

const tag = (channels: string[]) => channels.map((c) => `secret-${c}`).join(' ');

type WorldSpec = ReturnType<typeof worldArb> extends fc.Arbitrary<infer R> ? R : never;

function build(w: WorldSpec) {
  const world = new MemoryWorld();
  let n = 0;
  const id = () => String(900000 + ++n);
  for (const m of w.messages) {
    const mid = id();
    world.add(GUILD, {
      layer: 'archive',
      id: mid,
      messageId: mid,
      channelId: m.channel,
      authorId: m.author,
      authorIsBot: m.author === BOT,
      text: `${m.words.join(' ')} ${tag([m.channel])}?`,
      at: T0 - m.ago * MIN,
    });
  }
  for (const e of w.epochs) {
    world.add(GUILD, {
      layer: 'epochs',
      id: `e-${id()}`,
      channelId: e.channel,
      text: `${e.words.join(' ')} ${tag([e.channel])}`,
      at: T0 - e.ago * MIN,
    });
  }
  for (const h of w.highlights) {
    const mid = id();
    world.add(GUILD, {
      layer: 'highlights',
      id: `h-${mid}`,
      messageId: mid,
      channelId: h.channel,
      authorId: h.author,
      text: `${h.words.join(' ')} ${tag([h.channel])}`,
      at: T0 - h.ago * MIN,
    });
  }
  for (const l of w.lore) {
    world.add(GUILD, {
      layer: 'lore',
      id: `l-${id()}`,
      sourceChannelIds: l.sources,
      text: `${l.words.join(' ')} ${tag(l.sources)}`,
      at: T0 - l.ago * MIN,
    });
  }
  w.dossiers.forEach((d, i) => {
    world.add(GUILD, {
      layer: 'dossiers',
      id: `dossier-${AUTHORS[i]}`,
      authorId: AUTHORS[i],
      sourceChannelIds: d.sources,
      text: `${d.words.join(' ')} ${tag(d.sources)}`,
      at: T0 - d.ago * MIN,
    });
  });
  return world;
}

describe('audience: what a channel may see', () => {
  const channels: ChannelAudience[] = [
    { channelId: '1', audience: 'public' },
    { channelId: '2', audience: 'private' },
    { channelId: '3', audience: 'private', parentChannelId: '2' },
    { channelId: '4', audience: 'private' },
  ];

  it('hides other private channels and their threads, never public ones or its own', () => {
    expect([...hiddenFrom('1', channels)].sort()).toEqual(['2', '3', '4']);
    expect([...hiddenFrom('2', channels)].sort()).toEqual(['4']);
    expect([...hiddenFrom('3', channels)].sort()).toEqual(['4']);
    // A channel memory has not heard of yet is public, and sees only public content.
    expect([...hiddenFrom('9', channels)].sort()).toEqual(['2', '3', '4']);
  });

  it('shows a derived item only where every source may be shown', () => {
    const hidden = hiddenFrom('2', channels);
    expect(visibleWith(hidden, { sourceChannelIds: ['1', '3'] })).toBe(true);
    expect(visibleWith(hidden, { sourceChannelIds: ['1', '4'] })).toBe(false);
    expect(visibleWith(hiddenFrom('1', channels), { channelId: '3' })).toBe(false);
  });

  it('is a test of every lens', () => {
    expect(LENSES.map((l) => l.id).sort()).toEqual([...CONTEXT_STRATEGIES].sort());
  });

  // The oracle reads the generated guild directly: an item may appear in the target only if
  // each of its source channels is public or is the target's own place (itself, its parent,
  // its threads).
  it('never shows, in any lens and layer, an item from a channel the target may not see', async () => {
    await fc.assert(
      fc.asyncProperty(
        channelsArb.chain((channels) =>
          fc.record({
            channels: fc.constant(channels),
            world: worldArb(channels),
            target: fc.constantFrom(...channels.map((c) => c.channelId)),
            topic: fc.option(fc.constantFrom(...WORDS), { nil: undefined }),
            present: fc.subarray(AUTHORS),
          }),
        ),
        async ({ channels, world, target, topic, present }) => {
          const memory = build(world);
          const byId = new Map(channels.map((c) => [c.channelId, c]));
          const place = (id: string) => byId.get(id)?.parentChannelId ?? id;
          const mayShow = (source: string) =>
            byId.get(source)?.audience === 'public' || place(source) === place(target);
          const sources = (i: MemoryItem) =>
            i.sourceChannelIds ?? (i.channelId ? [i.channelId] : []);
          const secrets = channels
            .filter((c) => !mayShow(c.channelId))
            .map((c) => `secret-${c.channelId} `);
          for (const lens of LENSES) {
            const req: LensRequest = {
              guildId: GUILD,
              channelId: target,
              presentUserIds: present,
              focusUserId: ALICE,
              topic,
              now: T0,
              seed: 7,
              liveWindow: 12,
            };
            const ctx = await contextFor(lens, req, memory, channels, 100_000);
            for (const s of ctx.sections) {
              for (const item of s.items) {
                const leaked = sources(item).filter((c) => !mayShow(c));
                if (leaked.length) {
                  throw new Error(`${lens.id} showed ${item.id} of ${leaked} in ${target}`);
                }
              }
            }
            for (const secret of secrets) {
              if (`${ctx.text} `.replace(/\?/g, ' ').includes(secret)) {
                throw new Error(`${lens.id} text names ${secret.trim()} in ${target}`);
              }
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('still shows a private channel its own past and the public channels', async () => {
    const memory = new MemoryWorld().add(
      GUILD,
      {
        layer: 'archive',
        id: '1',
        messageId: '1',
        channelId: '2',
        authorId: ALICE,
        text: 'mod plan',
        at: T0 - MIN,
      },
      {
        layer: 'archive',
        id: '5',
        messageId: '5',
        channelId: '1',
        authorId: BOB,
        text: 'hello all',
        at: T0 - 2 * MIN,
      },
      {
        layer: 'archive',
        id: '6',
        messageId: '6',
        channelId: '4',
        authorId: BOB,
        text: 'other secret',
        at: T0 - 3 * MIN,
      },
    );
    const live = LENSES.find((l) => l.id === 'live')!;
    const req: LensRequest = {
      guildId: GUILD,
      channelId: '3',
      presentUserIds: [],
      now: T0,
      seed: 1,
      liveWindow: 10,
    };
    const ctx = await contextFor(live, req, memory, channels, 10_000);
    expect(ctx.sections.flatMap((s) => s.items.map((i) => i.id)).sort()).toEqual(['1', '5']);
  });
});
