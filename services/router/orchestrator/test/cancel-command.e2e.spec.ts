import type { INestApplication } from '@nestjs/common';
import { Subjects } from '@dirigent/contracts';
import { waitFor } from '@dirigent/testing';
import { newChannel, startHarness, type Harness } from '../../../discord-ingest/test/harness';
import { startGateway, type RunningGateway } from '../../../llm-gateway/test/harness';
import { startRouterWithMolt } from './harness';
import { gatewayConfig, ScriptedUpstream } from './scripted-upstream';

/**
 * `/dirigent cancel` through the local Discord: the real discord.js client in the ingest
 * answers the interaction, the router stops Molt's running task in that channel.
 */
describe('router: /dirigent cancel stops the channel’s running Molt tasks', () => {
  let h: Harness;
  let upstream: RunningGateway;
  let scripted: ScriptedUpstream;
  let router: INestApplication;
  const tasks: { channelId: string; status: string; agentType: string }[] = [];

  beforeAll(async () => {
    h = await startHarness();
    scripted = await ScriptedUpstream.start();
    scripted.script = (body) =>
      body.model === 'orch-up'
        ? { toolCalls: [{ name: 'delegate_to_coding', arguments: { task: 'hang' } }] }
        : { content: 'ok' };
    upstream = await startGateway(gatewayConfig(scripted));
    ({ router } = await startRouterWithMolt({
      extra: ['speculative: { enabled: false }', 'followups: { enabled: false }'],
    }));
    h.nats.client.nc.subscribe(`${Subjects.router.evtPrefix}.*.*.task`, {
      callback: (_e, msg) => {
        const data = msg.json<any>().data;
        tasks.push({ channelId: msg.subject.split('.')[4], ...data });
      },
    });
    await h.nats.client.nc.flush();
  });

  afterAll(async () => {
    await router?.close();
    await upstream?.close();
    await scripted?.close();
    await h?.stop();
  });

  const cancel = (channelId: string, userId: string) =>
    h.discord.runCommand({
      guildId: h.guild.id,
      channelId,
      userId,
      name: 'dirigent',
      options: [{ type: 1, name: 'cancel', options: [] }],
    });
  const statuses = (channelId: string) =>
    tasks.filter((t) => t.channelId === channelId).map((t) => t.status);

  it('cancels the running task for a manager and says what; refuses others; then nothing is left', async () => {
    const channel = newChannel(h);
    const quiet = newChannel(h);
    const asked = h.discord.postMessage({
      channelId: channel.id,
      authorId: h.alice.id,
      content: 'Molt, hang around for me',
    });
    await waitFor(() => statuses(channel.id).includes('running'), 30_000);

    const refused = await cancel(channel.id, h.bob.id);
    expect(refused.ephemeral).toBe(true);
    expect(refused.content).toMatch(/Manage Channels/);
    expect(statuses(channel.id)).toEqual(['running']);

    const elsewhere = await cancel(quiet.id, h.alice.id);
    expect(elsewhere).toMatchObject({
      ephemeral: true,
      content: 'Nothing to cancel: no task is running in this channel.',
    });

    const answer = await cancel(channel.id, h.alice.id);
    expect(answer.ephemeral).toBe(true);
    expect(answer.content).toBe(
      `Cancelled one run:\n- molt: the coding task asked for in message ${asked.id}`,
    );
    await waitFor(() => statuses(channel.id).includes('cancelled'), 20_000);
    expect(statuses(channel.id)).toEqual(['running', 'cancelled']);

    const again = await cancel(channel.id, h.alice.id);
    expect(again.content).toBe('Nothing to cancel: no task is running in this channel.');
  });
});
