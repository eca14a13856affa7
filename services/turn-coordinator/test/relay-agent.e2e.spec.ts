import { subject } from '@dirigent/contracts';
import { snowflake, spawnNode, testNatsUrl, waitFor, type Spawned } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from './harness';

const EXAMPLE = 'dist/libs/relay-client/examples/relay-agent.js';

/** The relay client's example agent, built and run as two processes (`npm run build` first). */
describe('relay client example agent', () => {
  let h: Harness;
  let agents: Agent[];
  const children: Spawned[] = [];

  beforeAll(async () => {
    h = await Harness.start();
    agents = makeAgents(2, 'relay');
    await h.register(agents);
  });

  afterAll(async () => {
    for (const c of children) await c.kill('SIGTERM');
    for (const a of agents) await h?.relay.deleteDurable(`relay-agent-${a.agentId}`);
    await h?.close();
  });

  it('takes its turns through the relay client until the channel rests', async () => {
    for (const a of agents) {
      const child = spawnNode(EXAMPLE, { NATS_URL: testNatsUrl(), AGENT_ID: a.agentId });
      children.push(child);
      await waitFor(() => child.output().includes('relay agent ready'), 20_000);
    }
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'relay-agents',
      participants: [agents[1].userId],
    });
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, snowflake(), 'anyone?', false);
    await waitFor(
      async () => grants.length === 2 && (await h.channel(channelId)).dormant,
      20_000,
      50,
      'both example agents to pass and the channel to rest',
    );
    expect((await h.channel(channelId)).dormantReason).toBe('unanimous-empty');
    for (const [i, c] of children.entries()) {
      expect(c.output()).toContain('"msg":"completed"');
      expect(c.output()).toContain(agents[i].agentId);
    }
  });
});
