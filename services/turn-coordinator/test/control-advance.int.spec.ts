import type { AddressInfo } from 'node:net';
import { subject } from '@dirigent/contracts';
import { snowflake, uid, waitFor } from '@dirigent/testing';
import { Harness, makeAgents, type Agent } from './harness';

const TOKEN = `adv-${uid('tok')}-0123456789`;

/** The control page's "Skip speaker": the admin advance behind the page's token. */
describe('control page: skip the current speaker', () => {
  let h: Harness;
  let base: string;
  let agents: Agent[];
  const human = snowflake();

  beforeAll(async () => {
    h = await Harness.start({ DIRIGENT_CONTROL_TOKEN: TOKEN });
    const { port } = h.app!.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}/dirigent/api/channels`;
    agents = makeAgents(2, 'adv');
    await h.register(agents);
  });
  afterAll(async () => {
    await h?.close();
  });

  const advance = (channelId: string, token?: string) =>
    fetch(`${base}/${channelId}/advance`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ guildId: h.guildId }),
    });

  it('refuses without the token, then skips the speaker and posts a notice', async () => {
    const { channelId } = await h.create(subject.tool('create-chat-channel'), {
      callerAgentId: agents[0].agentId,
      guildId: h.guildId,
      name: 'advance-page',
      participants: [agents[1].userId],
    });
    const grants = await h.grants(channelId);
    await h.fake.post(h.guildId, channelId, human, 'hello?', false);
    const first = await waitFor(() => grants[0], 10_000, 25, 'the first grant');

    expect((await advance(channelId)).status).toBe(401);
    expect(grants).toHaveLength(1);

    const res = await advance(channelId, TOKEN);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; data: { currentSpeaker: string } };
    expect(body.ok).toBe(true);
    expect(body.data.currentSpeaker).not.toBe(first.agentId);
    await waitFor(() => grants.length === 2, 10_000, 25, 'the grant after the skip');
    expect(grants[1].agentId).not.toBe(first.agentId);
    const notice = await waitFor(() => h.fake.sentTo(channelId, 'notice')[0], 5_000);
    expect(notice.content).toContain('the control page');
  });
});
