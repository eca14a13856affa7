import type { INestApplication } from '@nestjs/common';
import { Subjects } from '@dirigent/contracts';
import { snowflake, waitFor } from '@dirigent/testing';
import { MemoryHarness, type TestGuild } from '../../../memory/test/harness';
import { startRouterApp } from '../../test/harness';

/**
 * The memory skills (memory_search, recall_user, recall_group, summarize_window) through
 * `dirigent.router.skill.invoke` against the real memory service over NATS, which has ingested
 * the guild's messages from the Discord event stream: each answers from the guild of its call.
 */
describe('router skills: memory, against the memory service', () => {
  let h: MemoryHarness;
  let router: INestApplication;
  let guild: TestGuild;
  let other: TestGuild;
  const channelId = snowflake();
  /** A private channel: what is said there answers only there. */
  const vault = snowflake();
  const secret = 'the vault code is zebra forty two';
  const alice = snowflake();
  const bob = snowflake();
  const said = {
    alice: [
      'the raid is on saturday at the old mill',
      'bring torches for the old mill raid',
      'I will cook chili after the raid',
    ],
    bob: ['my guitar has a broken string again', 'the mill raid starts at nine'],
  };

  const invoke = async (skillId: string, args: unknown, guildId = guild.guildId, at = channelId) =>
    h.request<any>(
      Subjects.router.skillInvoke,
      { guildId, channelId: at, skillId, tool: skillId, args, actor: { userId: alice } },
      20_000,
    );
  const done = async (skillId: string, args: unknown, guildId?: string, at?: string) => {
    const r = await invoke(skillId, args, guildId, at);
    if (!r.ok) throw new Error(`${skillId}: ${r.error.code} ${r.error.message}`);
    expect(r.data.status).toBe('done');
    return r.data.result;
  };

  beforeAll(async () => {
    // Epochs close and the moment batch runs quickly: the group's lore forms in the test.
    h = await MemoryHarness.start({
      DIRIGENT_EPOCH_GAP_MS: '1500',
      DIRIGENT_MEMORY_SILENCE_MS: '1000',
      DIRIGENT_MEMORY_MOMENT_BATCH: '1000',
    });
    guild = h.guild();
    other = h.guild();
    for (const text of said.alice)
      await guild.say(channelId, alice, text, { authorName: 'alice_w' });
    for (const text of said.bob) await guild.say(channelId, bob, text, { authorName: 'bob_q' });
    await guild.say(vault, alice, secret, { authorName: 'alice_w', audience: 'private' });
    await other.say(snowflake(), snowflake(), 'the secret mill raid of another guild');
    // A phrase three people repeat (elsewhere, dated ahead so the epoch closes after them).
    const now = Date.now();
    const ahead = (i: number) => ({ createdAt: new Date(now + 3000 + i * 10).toISOString() });
    const [lounge, cat] = [snowflake(), snowflake()];
    await guild.say(lounge, alice, "honestly it's always DNS", ahead(0));
    await guild.say(lounge, bob, 'the VPN died, and yes: its always dns', ahead(1));
    await guild.say(lounge, cat, "It's always DNS. Always.", ahead(2));
    await h.waitForCount(guild.guildId, alice, said.alice.length + 2);
    await h.waitForCount(guild.guildId, bob, said.bob.length + 1);
    router = await startRouterApp(
      'agents:\n  - { id: dit, name: Dit }\nspeculative: { enabled: false }\nfollowups: { enabled: false }\n',
    );
  });

  afterAll(async () => {
    await router?.close();
    await h?.stop();
  });

  it('memory_search finds what was said, with who said it, in this guild only', async () => {
    const { hits } = await done('memory_search', { query: 'old mill raid torches' });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]).toEqual(
      expect.objectContaining({ text: said.alice[1], authorId: alice, channelId }),
    );
    expect(hits.some((x: any) => /another guild/.test(x.text))).toBe(false);
    const archive = await done('memory_search', { query: 'guitar string', layers: ['archive'] });
    expect(archive.hits.map((x: any) => x.layer)).toEqual(archive.hits.map(() => 'archive'));
    expect(archive.hits[0]).toEqual(expect.objectContaining({ text: said.bob[0], authorId: bob }));
  });

  it('recall_user answers a member’s dossier by id; an unknown member is NOT_FOUND', async () => {
    const d = await done('recall_user', { userId: alice });
    expect(d).toEqual(
      expect.objectContaining({ userId: alice, messageCount: said.alice.length + 2 }),
    );
    expect(typeof d.dossier).toBe('string');
    const nobody = await invoke('recall_user', { userId: snowflake() });
    expect(nobody).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const both = await invoke('recall_user', { userId: alice, name: 'alice_w' });
    expect(both).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('summarize_window gives the channel’s recent talk, and nothing of another guild', async () => {
    const w = await done('summarize_window', { minutes: 180 });
    expect(w).toEqual(expect.objectContaining({ channelId, minutes: 180 }));
    const texts = w.messages.map((m: any) => m.text).join('\n');
    for (const text of [...said.alice, ...said.bob]) expect(texts).toContain(text);
    expect(texts).not.toContain('another guild');
    // Older than the window: the messages were said an hour ago.
    const short = await done('summarize_window', { minutes: 1 });
    expect(short.messages).toEqual([]);
  });

  it('recall_group answers the group’s lore on a topic, in this guild only', async () => {
    const lore = await waitFor(
      async () => {
        const g = await done('recall_group', { topic: 'always dns' });
        return g.lore.some((x: any) => x.layer === 'lore') ? g.lore : undefined;
      },
      60_000,
      200,
      'the repeated phrase to become lore',
    );
    expect(lore.filter((x: any) => x.layer === 'lore').map((x: any) => x.text)).toEqual([
      'Recurring phrase in the group: "its always dns" (said by 3 people)',
    ]);
    // Another guild's memory answers only with its own talk.
    const elsewhere = await done('recall_group', { topic: 'always dns' }, other.guildId);
    expect(elsewhere.lore.map((x: any) => x.text).join('\n')).not.toMatch(/dns/i);
    const bad = await invoke('recall_group', { topic: '' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(!bad.ok && bad.error.message).toMatch(/^args\.topic/);
  });

  it('answers every memory skill for the channel it is asked in: a private channel stays there', async () => {
    const leaks = /zebra|vault code/i;
    const asked = [
      await done('memory_search', { query: 'vault code zebra' }),
      await done('recall_user', { userId: alice }),
      await done('recall_group', { topic: 'vault code zebra' }),
      await done('recall_group', {}),
      await done('summarize_window', { minutes: 180 }),
      // Another channel's talk, asked for from a public one.
      await done('summarize_window', { channelId: vault, minutes: 180 }),
    ];
    for (const result of asked) expect(JSON.stringify(result)).not.toMatch(leaks);
    // In the private channel itself, the same questions recall it.
    const own = await done('memory_search', { query: 'vault code zebra' }, undefined, vault);
    expect(own.hits.map((x: any) => x.text)).toContain(secret);
    const window = await done('summarize_window', { minutes: 180 }, undefined, vault);
    expect(window.messages.map((m: any) => m.text)).toContain(secret);
  });
});
