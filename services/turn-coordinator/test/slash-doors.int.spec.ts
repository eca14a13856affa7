import { Subjects, subject } from '@dirigent/contracts';
import { snowflake } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from './harness';

/** `dirigent.turn.slash.*`: what a member typed in Discord acts only with that member's right. */
describe('turn coordinator: slash-command doors', () => {
  let h: Harness;
  let agents: Agent[];
  let channelId: string;
  const member = snowflake();

  beforeAll(async () => {
    h = await Harness.start();
    agents = makeAgents(2, 'slash');
    await h.register(agents);
    ({ channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'slash-doors',
      participants: [agents[1].userId],
    }));
  });

  afterAll(async () => {
    await h?.close();
  });

  const asMember = (canManageChannels: boolean) => ({
    guildId: h.guildId,
    channelId,
    userId: member,
    canManageChannels,
  });

  it('refuses a change from a member without Manage Channels, and changes nothing', async () => {
    const before = await h.channel(channelId);
    for (const [door, extra] of [
      [Subjects.turn.slash.setMode, { mode: 'none' }],
      [Subjects.turn.slash.setShuffle, { shuffle: true }],
      [Subjects.turn.slash.skip, {}],
    ] as const) {
      const r = await h.request(door, { ...asMember(false), ...extra });
      expect(r).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    }
    expect(await h.channel(channelId)).toEqual(before);
  });

  it('acts for a member with Manage Channels', async () => {
    const shuffled = await h.ok(Subjects.turn.slash.setShuffle, {
      ...asMember(true),
      shuffle: true,
    });
    expect(shuffled).toMatchObject({ shuffle: true });
    const none = await h.ok(Subjects.turn.slash.setMode, { ...asMember(true), mode: 'none' });
    expect(none).toMatchObject({ mode: 'none', tmState: 'disabled' });
  });

  it('shows the status to anyone', async () => {
    const view = await h.ok(Subjects.turn.slash.status, asMember(false));
    expect(view).toMatchObject({ mode: 'none' });
  });

  it('answers bad input with the field at fault', async () => {
    const noMode = await h.request(Subjects.turn.slash.setMode, asMember(true));
    expect(noMode).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    const noUser = await h.request(Subjects.turn.slash.status, { guildId: h.guildId, channelId });
    expect(noUser).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('gives the ingest agents’ names and nothing else of the registry', async () => {
    const { names } = await h.ok<{ names: Record<string, unknown>[] }>(
      Subjects.turn.agentNames,
      {},
    );
    const mine = names.filter((n) => agents.some((a) => a.agentId === n.agentId));
    expect(mine).toHaveLength(2);
    for (const n of mine) expect(Object.keys(n).sort()).toEqual(['agentId', 'agentName']);
  });
});
