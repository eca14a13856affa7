import { rejectedUntilReask, startUpkeepWorld, type UpkeepWorld } from './upkeep-world';

/**
 * `steward-upkeep-role` over a generated guild history: a role for 5 members who each kept
 * meeting around a topic for 21 days (`DIRIGENT_UPKEEP_ROLE_MEMBERS`,
 * `DIRIGENT_UPKEEP_ROLE_DAYS`), proposed once, not asked again after a rejection until
 * `DIRIGENT_UPKEEP_REASK_DAYS` (30) have passed on the router's clock.
 */
describe('steward upkeep: a role for a group that keeps meeting around a topic', () => {
  let w: UpkeepWorld;

  beforeAll(async () => {
    w = await startUpkeepWorld();
    // Deciding a role change takes Manage Roles as well as Manage Server.
    const { discord, guild, alice } = w.h;
    const roles = discord.admin.createRole(guild.id, {
      name: 'role-keepers',
      permissions: 1n << 28n,
    });
    discord.admin.setMemberRole(guild.id, alice.id, roles.id, true);
    const [a, b, c, d, e, f] = w.members;
    const { id } = w.general;
    // Five members, each 21 days from first to last meeting on gardening: at both thresholds.
    w.epoch(id, 22, [a, b, c, d, e], ['gardening']);
    w.epoch(id, 1, [a, b, c, d, e], ['gardening']);
    // Just below: four members over 25 days; five over 20 days (and one more only once).
    w.epoch(id, 26, [a, b, c, d], ['compost']);
    w.epoch(id, 1, [a, b, c, d], ['compost']);
    w.epoch(id, 21, [a, b, c, d, e], ['knitting']);
    w.epoch(id, 1, [a, b, c, d, e, f], ['knitting']);
  }, 90_000);

  afterAll(() => w?.stop());

  it('proposes the role once, only for the group at the thresholds', async () => {
    await w.surveyed();
    const made = await w.proposals('manage_roles');
    expect(made.map((p) => p.args)).toEqual([{ action: 'create', roleName: 'gardening' }]);
    expect(made[0].reason).toMatch(/^5 members have kept meeting around "gardening" for 21 days/);

    await w.surveyed();
    expect(await w.proposals('manage_roles')).toHaveLength(1);
  });

  it('does not ask again after a rejection, until the re-ask period has passed', () =>
    rejectedUntilReask(w, 'manage_roles', `upkeep-role-${w.h.guild.id}-gardening-1`));
});
