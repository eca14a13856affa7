import { Subjects } from '@dirigent/contracts';
import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
import { snowflake, waitFor } from '@dirigent/testing';
import { startRouterStack, type RouterStack } from './harness';

const YAML = `
agents:
  - { id: dit, name: Dit }
speculative: { enabled: false }
followups: { enabled: false }
`;

/** A beat never seen delivered stops the burst visibly: the decision and an event say so. */
describe('router: a burst whose beat is not delivered', () => {
  let s: RouterStack;
  const guild = snowflake();

  beforeAll(async () => {
    s = await startRouterStack(YAML, { DIRIGENT_ROUTER_BEAT_TIMEOUT_MS: '500' });
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await s.request(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: d.id === 'settle-debate' ? 1 : 0,
      });
      expect(r.ok).toBe(true);
    }
  });
  afterAll(async () => {
    await s?.discord.release();
    await s?.close();
  });

  it('stops at that beat, records it on the decision and publishes burst-stopped', async () => {
    s.upstream.behave = () => ({ kind: 'ok', text: 'one\n\ntwo\n\nthree' });
    s.discord.hold();
    const channel = snowflake();
    await s.discord.human(guild, channel, 'dit, settle this: tabs or spaces?');
    const stopped = await waitFor(() =>
      s.events.find((e) => e.subject.endsWith(`${channel}.burst-stopped`)),
    );
    expect(stopped.data).toMatchObject({
      agentId: 'dit',
      reason: 'not-delivered',
      beat: 0,
      withheld: 2,
      waitedMs: 500,
    });
    expect(s.discord.sent(channel).map((c) => c.data.content)).toEqual(['one']);
    const listed = await s.request(Subjects.router.decisionsList, {
      guildId: guild,
      channelId: channel,
    });
    expect(listed.data.decisions[0]).toMatchObject({
      decisionId: stopped.data.decisionId,
      undelivered: { beat: 0, withheld: 2, waitedMs: 500 },
    });
  });
});
