import { Subjects, type MemoryHighlight, type MemoryHit } from '@dirigent/contracts';
import { waitFor } from '@dirigent/testing';
import { DAY, startUpkeepWorld, type UpkeepWorld } from './upkeep-world';

const steps = (p: { args: Record<string, unknown> }) => (p.args as { steps: string[] }).steps;

/**
 * `steward-upkeep-archive` over a generated guild history: archiving a channel quiet for 30
 * days after 200 messages (`DIRIGENT_UPKEEP_ARCHIVE_IDLE_DAYS`,
 * `DIRIGENT_UPKEEP_ARCHIVE_MIN_MESSAGES`), proposed once, not asked again after a rejection
 * until `DIRIGENT_UPKEEP_REASK_DAYS` (30) have passed on the router's clock; a channel just
 * short of the idle threshold is proposed once the clock has moved past it. Approved, memory
 * (answered at the wire: `dirigent.memory.search`, `dirigent.memory.highlight.add`) keeps
 * the channel's highlights and the channel gets its summary with them.
 */
describe('steward upkeep: archiving a channel that went quiet after a long life', () => {
  let w: UpkeepWorld;
  let fair: { id: string };
  let recent: { id: string };
  const searches: Record<string, unknown>[] = [];
  const kept: Record<string, unknown>[] = [];
  const said = new Map<string, { text: string; author: string }>();

  beforeAll(async () => {
    w = await startUpkeepWorld();
    const [a, b, c] = w.members;
    fair = w.channel('spring-fair');
    recent = w.channel('summer-fair');
    const small = w.channel('tiny-club');
    // 200 messages, the last epoch ended 30 days (and an hour) ago: at both thresholds.
    w.epoch(fair.id, 60, [a, b], ['spring fair'], 150);
    w.epoch(fair.id, 30 + 2 / 24, [c], ['spring fair'], 50);
    // Just below: 250 messages but quiet for 29 days; 199 messages quiet for 40 days.
    w.epoch(recent.id, 29.5, [a, b], ['summer fair'], 250);
    w.epoch(small.id, 40, [a], ['knitting'], 199);
    w.epoch(w.general.id, 1, [a, b, c], ['hello']);
    // What memory holds of #spring-fair: two of its messages and one highlight it kept.
    for (const [text, author] of [
      ['We raised 300 for the seed library at the fair!', w.h.alice],
      ['Next year the fair moves to the orchard.', w.h.bob],
    ] as const) {
      const m = w.h.discord.postMessage({ channelId: fair.id, authorId: author.id, content: text });
      said.set(m.id, { text, author: author.username });
    }
    const [m1, m2] = [...said.keys()];
    const nc = w.h.nats.client.nc;
    nc.subscribe(Subjects.memory.search, {
      callback: (_e, m) => {
        searches.push(m.json());
        const hits: MemoryHit[] = [
          {
            layer: 'highlights',
            id: 'h-1',
            channelId: fair.id,
            text: 'Best fair ever.',
            at: '2026-01-01T00:00:00.000Z',
            score: 0.9,
          },
          {
            layer: 'archive',
            id: m1,
            messageId: m1,
            channelId: fair.id,
            text: said.get(m1)!.text,
            at: '2026-01-01T00:00:00.000Z',
            score: 0.8,
          },
          {
            layer: 'archive',
            id: m2,
            messageId: m2,
            channelId: fair.id,
            text: said.get(m2)!.text,
            at: '2026-01-01T00:00:00.000Z',
            score: 0.7,
          },
        ];
        m.respond(JSON.stringify({ ok: true, data: { hits } }));
      },
    });
    nc.subscribe(Subjects.memory.highlightAdd, {
      callback: (_e, m) => {
        const q = m.json<{ guildId: string; channelId: string; messageId: string }>();
        kept.push(q);
        const h: MemoryHighlight = {
          id: `hl-${q.messageId}`,
          guildId: q.guildId,
          channelId: q.channelId,
          messageId: q.messageId,
          authorId: 'x',
          authorName: said.get(q.messageId)!.author,
          rawText: said.get(q.messageId)!.text,
          kind: 'manual',
          at: '2026-01-01T00:00:00.000Z',
        };
        m.respond(JSON.stringify({ ok: true, data: h }));
      },
    });
  }, 90_000);

  afterAll(() => w?.stop());

  it('proposes archiving once, only the channel at the thresholds, with its summary', async () => {
    await w.surveyed();
    const made = await w.proposals('propose_restructure');
    expect(made.map(steps)).toEqual([['archive #spring-fair']]);
    expect(made[0].channelId).toBe(fair.id);
    expect(String(made[0].args.summary)).toMatch(/quiet for 30 days after 200 messages/);
    expect(String(made[0].args.summary)).toContain('Talk of spring fair.');

    await w.surveyed();
    expect(await w.proposals('propose_restructure')).toHaveLength(1);
  });

  it('does not ask again after a rejection, until the re-ask period has passed', async () => {
    const [first] = await w.proposals('propose_restructure');
    expect(await w.decide(first.proposalId, false)).toMatchObject({ status: 'rejected' });
    await w.surveyed();
    expect((await w.proposals('propose_restructure')).map(steps)).toEqual([
      ['archive #spring-fair'],
    ]);

    // 29 days on: #summer-fair is now long quiet too; #spring-fair is not asked yet.
    w.clock.advance(29 * DAY);
    await w.surveyed();
    const later = await w.proposals('propose_restructure');
    expect(later.map((p) => [steps(p)[0], p.status])).toEqual([
      ['archive #spring-fair', 'rejected'],
      ['archive #summer-fair', 'pending'],
    ]);

    w.clock.advance(1 * DAY + 60_000);
    await w.surveyed();
    const again = (await w.proposals('propose_restructure')).filter((p) => p.channelId === fair.id);
    expect(again.map((p) => [p.proposalId, p.status])).toEqual([
      [first.proposalId, 'rejected'],
      [`upkeep-archive-${fair.id}-1`, 'pending'],
    ]);
    // Asked anew with the idle time of this survey, not the rejected proposal's 30 days (the
    // day count is floored when the survey reads the channel: 59 or 60 here).
    const idle = /quiet for (\d+) days after 200 messages/.exec(String(again[1].args.summary));
    expect(Number(idle?.[1])).toBeGreaterThanOrEqual(59);
    expect(
      (await w.proposals('propose_restructure')).filter((p) => p.channelId === recent.id),
    ).toHaveLength(1);
  });

  it('approved, keeps the channel highlights in memory and posts its summary with them', async () => {
    const [asked] = (await w.proposals('propose_restructure')).filter(
      (p) => p.channelId === fair.id && p.status === 'pending',
    );
    await w.decide(asked.proposalId, true);
    const done = await waitFor(
      async () =>
        (await w.proposals('propose_restructure')).find(
          (p) => p.proposalId === asked.proposalId && p.status !== 'approved',
        ),
      60_000,
      100,
      'the archive run',
    );
    expect(done.status).toBe('executed');
    // Memory was asked for the channel's moments, for its own audience, by its summary…
    // (The router's routing reads count hits too: only the archive's read is looked at.)
    expect(searches.filter((q) => q.forChannelId === fair.id)).toEqual([
      expect.objectContaining({
        guildId: w.h.guild.id,
        channelId: fair.id,
        forChannelId: fair.id,
        layers: ['highlights', 'archive'],
        query: asked.args.summary,
      }),
    ]);
    // …and keeps its messages verbatim in the highlight layer.
    expect(kept).toEqual(
      [...said.keys()].map((messageId) => ({
        guildId: w.h.guild.id,
        channelId: fair.id,
        messageId,
        kind: 'manual',
      })),
    );
    const channel = w.h.discord.channels.get(fair.id)!;
    expect(channel.name).toBe('archived-spring-fair');
    const closing = w.h.discord
      .channelMessages(fair.id)
      .filter((m) => m.authorId === w.h.discord.bot.id)
      .map((m) => m.content);
    expect(closing).toEqual([
      [
        `This channel is archived by the moderators. ${String(asked.args.summary)}`,
        'Memory keeps its highlights:',
        '> Best fair ever.',
        '> We raised 300 for the seed library at the fair! (alice)',
        '> Next year the fair moves to the orchard. (bob)',
      ].join('\n'),
    ]);
  });
});
