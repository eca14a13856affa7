import { EntityManager } from '@mikro-orm/postgresql';
import {
  CONTEXT_STRATEGIES,
  Subjects,
  subject,
  type ChannelUpdated,
  type MemoryContextResult,
  type MemoryDossier,
  type MemoryEpoch,
  type MemorySearchResult,
} from '@dirigent/contracts';
import { snowflake, uid, waitFor } from '@dirigent/testing';
import { MemoryDossierRow } from '../adapters/postgres/dossier.entity';
import type { DossierRepository } from '../adapters/postgres/dossier.repository';
import { MemoryLore } from '../adapters/postgres/lore.entity';
import type { LoreRepository } from '../adapters/postgres/lore.repository';
import { MemoryHarness } from './harness';

jest.setTimeout(120_000);

/**
 * What a channel may see, through the real memory service: a private channel's messages,
 * its epoch summary, lore and a dossier drawn on it never answer a public channel, while
 * the private channel itself (and the admin view) recalls them; a channel made private
 * later hides its past from then on.
 */
describe('audience', () => {
  let h: MemoryHarness;
  let em: EntityManager;
  beforeAll(async () => {
    h = await MemoryHarness.start({ DIRIGENT_EPOCH_GAP_MS: '1500' });
    em = h.app!.get(EntityManager);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const search = (guildId: string, query: string, forChannelId?: string) =>
    h
      .ok<MemorySearchResult>(Subjects.memory.search, {
        guildId,
        query,
        k: 20,
        ...(forChannelId ? { forChannelId } : {}),
      })
      .then((r) => r.hits);

  const context = (guildId: string, channelId: string, strategy: string, people: string[]) =>
    h.ok<MemoryContextResult>(Subjects.memory.context, {
      guildId,
      channelId,
      strategy,
      topic: 'zebra vault password',
      presentUserIds: people,
      focusUserId: people[1],
      maxTokens: 8000,
    });

  it('keeps a private channel and everything drawn on it out of public answers', async () => {
    const g = h.guild();
    const [general, mod] = [snowflake(), snowflake()];
    const [ann, ben] = [snowflake(), snowflake()];
    await g.say(general, ann, 'the picnic is at the lake on saturday', {
      audience: 'public',
      authorName: 'Ann',
    });
    const secret = await g.say(mod, ben, 'the zebra vault password is hunter7', {
      audience: 'private',
      authorName: 'Ben',
    });
    await g.say(mod, ben, 'ban the zebra spammer tonight', { audience: 'private' });
    await h.waitForCount(g.guildId, ben, 2);
    // The private channel's conversation closes into an epoch (a summary of it).
    await waitFor(
      async () =>
        (
          await h.ok<{ epochs: MemoryEpoch[] }>(Subjects.memory.epochsList, {
            guildId: g.guildId,
            channelId: mod,
          })
        ).epochs.length > 0,
      20_000,
      100,
      'the private channel’s epoch',
    );
    // Derived items drawn on the private message: lore and Ben's dossier body.
    const fork = em.fork();
    await (fork.getRepository(MemoryLore) as unknown as LoreRepository).upsertPhrases(
      g.guildId,
      [{ id: `lore-${uid('zebra')}`, text: 'the zebra vault is sacred', sourceIds: [secret] }],
      new Date(),
    );
    await (fork.getRepository(MemoryDossierRow) as unknown as DossierRepository).saveConsolidation(
      g.guildId,
      ben,
      'Ben keeps the zebra vault password',
      { mood: 'guarded' },
      new Date(),
      [secret],
    );

    const leaks = /zebra|hunter7/i;
    for (const strategy of CONTEXT_STRATEGIES) {
      const ctx = await context(g.guildId, general, strategy, [ann, ben]);
      expect({ strategy, text: ctx.text }).not.toEqual({
        strategy,
        text: expect.stringMatching(leaks),
      });
      const channels = ctx.sections.flatMap((s) => s.items.map((i) => i.channelId));
      expect(channels).not.toContain(mod);
    }
    const inGeneral = await search(g.guildId, 'zebra vault password', general);
    expect(inGeneral.filter((x) => leaks.test(x.text) || x.channelId === mod)).toEqual([]);
    const dossier = await h.ok<MemoryDossier>(Subjects.memory.dossierGet, {
      guildId: g.guildId,
      userId: ben,
      forChannelId: general,
    });
    expect(dossier.body).not.toMatch(leaks);
    expect(dossier.signals).not.toHaveProperty('mood');

    // The private channel recalls its own past and what was drawn on it.
    const inMod = await search(g.guildId, 'zebra vault password', mod);
    expect(inMod.map((x) => x.layer)).toEqual(
      expect.arrayContaining(['archive', 'lore', 'dossiers']),
    );
    const rich = await context(g.guildId, mod, 'live+lore+dossiers', [ann, ben]);
    expect(rich.text).toContain('hunter7');
    expect(rich.text).toContain('the zebra vault is sacred');
    expect(rich.text).toContain('Ben keeps the zebra vault password');
    // And a public channel's content shows in the private one.
    expect(rich.text).toContain('picnic');

    // Without a target the search is the admin view (the control page's): everything.
    const admin = await search(g.guildId, 'zebra vault password');
    expect(admin.some((x) => x.text.includes('hunter7'))).toBe(true);
  });

  it('hides a channel’s past from other channels once it is made private', async () => {
    const g = h.guild();
    const [general, kitchen] = [snowflake(), snowflake()];
    const cook = snowflake();
    await g.say(kitchen, cook, 'the secret recipe uses cardamom and saffron', {
      audience: 'public',
    });
    await g.say(general, cook, 'dinner at eight', { audience: 'public' });
    await h.waitForCount(g.guildId, cook, 2);
    const seen = await search(g.guildId, 'cardamom saffron recipe', general);
    expect(seen.map((x) => x.text)).toContain('the secret recipe uses cardamom and saffron');

    const update: ChannelUpdated = {
      guildId: g.guildId,
      channelId: kitchen,
      name: 'kitchen',
      audience: 'private',
      audienceKey: 'private:test',
    };
    await h.messaging.publishEvent(
      subject.discordEvent(g.guildId, kitchen, 'channel.updated'),
      'channel.updated',
      update,
    );
    await waitFor(
      async () =>
        !(await search(g.guildId, 'cardamom saffron recipe', general)).some(
          (x) => x.channelId === kitchen || /cardamom/.test(x.text),
        ),
      15_000,
      100,
      'the kitchen’s past to be hidden from #general',
    );
    const live = await context(g.guildId, general, 'live', [cook]);
    expect(live.text).not.toMatch(/cardamom/);
    expect(live.text).toContain('dinner at eight');
    const own = await search(g.guildId, 'cardamom saffron recipe', kitchen);
    expect(own.map((x) => x.text)).toContain('the secret recipe uses cardamom and saffron');
  });

  it('refuses a search whose target is not a snowflake', async () => {
    const r = await h.request(Subjects.memory.search, {
      guildId: snowflake(),
      query: 'anything',
      forChannelId: 'general',
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('BAD_REQUEST');
  });
});
