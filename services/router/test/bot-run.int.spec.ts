import { Durables, Streams, Subjects } from '@dirigent/contracts';
import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
import { snowflake, waitFor } from '@dirigent/testing';
import { startRouterStack, type RouterStack } from './harness';

const YAML = `
agents:
  - { id: dit, name: Dit }
speculative: { enabled: false }
followups: { enabled: false }
`;
const OTHER_BOT = '700000000000000099';

/**
 * The bots' run of messages without a human one (at most three), at post time: the soak's
 * runs of four were mention answers that came after the run had filled (the channel's
 * lane behind by a minute), posted because a mention was exempt from the bound.
 */
describe('router: the bots’ run is bounded at post time, mentions included', () => {
  let s: RouterStack;
  const guild = snowflake();

  beforeAll(async () => {
    s = await startRouterStack(YAML);
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await s.request(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: d.id === 'quick-react' ? 1 : 0,
      });
      expect(r.ok).toBe(true);
    }
  });
  afterAll(async () => {
    await s?.close();
  });

  /** The router has taken in every Discord event published so far (it acks after observing). */
  const caughtUp = () =>
    waitFor(async () => {
      const i = await s.messaging.client.jsm.consumers.info(
        Streams.discordEvents,
        Durables.routerDiscordEvents,
      );
      return i.num_pending === 0 && i.num_ack_pending === 0;
    });

  it('a mention whose answer finds three bot messages already posted is answered with a reaction', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    s.upstream.behave = () => ({ kind: 'hold', until: held, then: { kind: 'ok', text: 'sure' } });
    const channel = snowflake();
    const asked = await s.discord.human(guild, channel, 'dit, what do you think?');
    // While Dit's answer is being written, other bots fill the run.
    for (let i = 0; i < 3; i++) {
      await s.discord.human(guild, channel, `chatter ${i}`, {
        authorId: OTHER_BOT,
        authorIsBot: true,
      });
    }
    await caughtUp();
    release();
    const heldBack = await waitFor(() =>
      s.events.find((e) => e.subject.endsWith(`${channel}.held-back`)),
    );
    expect(heldBack.data).toMatchObject({
      agentId: 'dit',
      inboundMessageId: asked.messageId,
      sent: 0,
      withheld: 1,
    });
    const reactions = s.discord.of('add-reaction', channel);
    expect(reactions.map((c) => c.data.messageId)).toEqual([asked.messageId]);
    expect(reactions[0].data.emoji).toBe(heldBack.data.reaction);
    expect(s.discord.sent(channel)).toEqual([]);
    const listed = await s.request(Subjects.router.decisionsList, {
      guildId: guild,
      channelId: channel,
    });
    expect(listed.data.decisions[0]).toMatchObject({ beats: [], reaction: heldBack.data.reaction });
  });
});
