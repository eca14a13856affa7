import { rejectedUntilReask, startUpkeepWorld, type UpkeepWorld } from './upkeep-world';

/**
 * `steward-upkeep-topic-channel` over a generated guild history: a channel for a topic
 * discussed on 3 distinct days by 4 members (`DIRIGENT_UPKEEP_TOPIC_DAYS`,
 * `DIRIGENT_UPKEEP_TOPIC_MEMBERS`), proposed once, not asked again after a rejection until
 * `DIRIGENT_UPKEEP_REASK_DAYS` (30) have passed on the router's clock.
 */
describe('steward upkeep: a channel for a topic the guild keeps coming back to', () => {
  let w: UpkeepWorld;

  beforeAll(async () => {
    w = await startUpkeepWorld();
    const [a, b, c, d, e] = w.members;
    const { id } = w.general;
    // "seed swap" on 3 days by 4 members: just at both thresholds.
    w.epoch(id, 6, [a, b], ['seed swap']);
    w.epoch(id, 5, [c], ['seed swap', 'tomatoes']);
    w.epoch(id, 4, [d], ['Seed swap']);
    // Just below: "tomatoes" by 5 members on 2 days; "beekeeping" on 3 days by 3 members.
    w.epoch(id, 3, [a, b, c, d, e], ['tomatoes']);
    w.epoch(id, 6, [a], ['beekeeping']);
    w.epoch(id, 5, [b], ['beekeeping']);
    w.epoch(id, 4, [c], ['beekeeping']);
    // A topic that has a channel of its own already.
    w.channel('compost-corner');
    w.epoch(id, 6, [a, b], ['compost corner']);
    w.epoch(id, 5, [c, d], ['compost corner']);
    w.epoch(id, 4, [e], ['compost corner']);
  }, 90_000);

  afterAll(() => w?.stop());

  it('proposes the channel once, only for the topic at the thresholds', async () => {
    await w.surveyed();
    const made = await w.proposals('create_channel');
    // "seed swap" and "Seed swap" are one topic, by its slug.
    expect(made.map((p) => p.args)).toEqual([
      { name: 'seed-swap', topic: expect.stringMatching(/^seed swap$/i) },
    ]);
    expect(made[0].status).toBe('pending');
    expect(made[0].reason).toMatch(/3 days among 4 members/);

    // Surveyed again while it is pending: nothing more.
    await w.surveyed();
    expect(await w.proposals('create_channel')).toHaveLength(1);
  });

  it('does not ask again after a rejection, until the re-ask period has passed', () =>
    rejectedUntilReask(w, 'create_channel', `upkeep-topic-${w.h.guild.id}-seed-swap-1`));
});
