import type { INestApplication } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { subject, Subjects } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
import { closeMessaging, snowflake, testMessaging, waitFor } from '@dirigent/testing';
import { startGateway, type RunningGateway } from '../../../llm-gateway/test/harness';
import { FakeDiscord } from '../../test/fake-discord';
import { RouterTaskRow } from '../adapters/postgres/task.entity';
import { Tasks } from '../orchestrator.module';
import { startRouterWithMolt } from './harness';
import { gatewayConfig, ScriptedUpstream } from './scripted-upstream';

/** How long the fake coding CLI works on a "long" job. */
const LONG_JOB_S = 8;

/** Molt's delegated jobs run as tasks off the channel's lane, next to Dit (in process). */
describe('router: an orchestrator’s delegated jobs are tasks', () => {
  const moltUserId = snowflake();
  const guildId = snowflake();
  let upstream: ScriptedUpstream;
  let gateway: RunningGateway;
  let router: INestApplication;
  let m: Messaging;
  let discord: FakeDiscord;
  const tasks: { channelId: string; data: any }[] = [];

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    upstream.script = (body) => {
      if (body.model !== 'orch-up') return { content: 'dit is here' };
      const text = body.messages.find((x: any) => x.role === 'user')?.content as string;
      const task = text.includes('long job') ? `sleep:${LONG_JOB_S}` : 'hang';
      return { toolCalls: [{ name: 'delegate_to_coding', arguments: { task } }] };
    };
    const config = gatewayConfig(upstream) as { purposes: Record<string, unknown> };
    for (const p of ['synth-low', 'synth-mid', 'synth-high', 'router-classify'])
      config.purposes[p] = { model: 'general', fallbacks: [] };
    gateway = await startGateway(config);
    ({ router } = await startRouterWithMolt({
      moltUserId,
      agents: ['  - { id: dit, name: Dit }'],
      extra: ['speculative: { enabled: false }', 'followups: { enabled: false }'],
    }));
    m = await testMessaging('router-tasks-test');
    discord = new FakeDiscord(m);
    await discord.start();
    m.client.nc.subscribe(`${Subjects.router.evtPrefix}.*.*.task`, {
      callback: (_e, msg) => {
        tasks.push({ channelId: msg.subject.split('.')[4], data: msg.json<any>().data });
      },
    });
    await m.client.nc.flush();
    // Dit answers what it is asked in one line.
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await m.request(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: d.id === 'quick-react' ? 1 : 0,
      });
      expect(r.ok).toBe(true);
    }
  });

  afterAll(async () => {
    await discord.stop();
    await router.close();
    await gateway.close();
    await upstream.close();
    await closeMessaging(m);
  });

  const replies = (channelId: string, agent: string) =>
    discord
      .of('send-message', channelId)
      .filter((c) => c.data.purpose === 'agent-reply' && c.data.asAgentId === agent);
  const statuses = (channelId: string) =>
    tasks.filter((t) => t.channelId === channelId).map((t) => t.data.status);

  it('a long coding job runs off the lane: Dit answers meanwhile; running → done, the result posted', async () => {
    const channelId = snowflake();
    await discord.human(guildId, channelId, `<@${moltUserId}> do the long job`, {
      mentions: [moltUserId],
    });
    const running = await waitFor(
      () => tasks.find((t) => t.channelId === channelId && t.data.status === 'running'),
      20_000,
    );
    expect(running.data).toEqual(
      expect.objectContaining({
        taskId: expect.any(String),
        decisionId: expect.any(String),
        agentType: 'coding',
        startedAt: expect.any(String),
      }),
    );
    await discord.human(guildId, channelId, 'dit, are you still with us?');
    await waitFor(() => replies(channelId, 'dit').length > 0, 20_000);
    // Dit spoke while the job was still running.
    expect(statuses(channelId)).toEqual(['running']);

    const done = await waitFor(
      () => tasks.find((t) => t.channelId === channelId && t.data.status === 'done'),
      LONG_JOB_S * 1000 + 20_000,
    );
    expect(done.data).toEqual(
      expect.objectContaining({
        taskId: running.data.taskId,
        decisionId: running.data.decisionId,
        startedAt: running.data.startedAt,
        endedAt: expect.any(String),
        summary: expect.stringContaining(`slept ${LONG_JOB_S} s`),
      }),
    );
    await waitFor(() => replies(channelId, 'molt').length > 0, 10_000);
    expect(replies(channelId, 'molt')[0].data.content).toMatch(/^slept 8 s in /);
    const em = router.get(MikroORM).em.fork();
    const row = await em.findOneOrFail(RouterTaskRow, { taskId: running.data.taskId });
    expect(row.status).toBe('done');
  });

  it('deleting the request cancels its task', async () => {
    const channelId = snowflake();
    const asked = await discord.human(guildId, channelId, `<@${moltUserId}> hang around`, {
      mentions: [moltUserId],
    });
    await waitFor(() => statuses(channelId).includes('running'), 20_000);
    await m.publishEvent(
      subject.discordEvent(guildId, channelId, 'message.deleted'),
      'message.deleted',
      { guildId, channelId, messageId: asked.messageId },
      { id: `discord:deleted:${asked.messageId}` },
    );
    await waitFor(() => statuses(channelId).includes('cancelled'), 15_000);
    expect(statuses(channelId)).toEqual(['running', 'cancelled']);
    expect(replies(channelId, 'molt')).toEqual([]);
  });

  it('a task whose process died is reported failed in its channel when the router starts', async () => {
    const channelId = snowflake();
    const asked = snowflake();
    const taskId = '6a1c1e4e-7f7e-4b8e-9a35-0d3a1d6f2b11';
    const em = router.get(MikroORM).em.fork();
    em.create(RouterTaskRow, {
      taskId,
      guildId,
      channelId,
      agentId: 'molt',
      agentType: 'coding',
      inboundMessageId: asked,
      status: 'running',
      // No process holds this owner's lease: it died.
      owner: 'gone-host:4242:dead',
      startedAt: new Date(Date.now() - 60_000),
    });
    await em.flush();
    // What a start does (this process holds its own lease already).
    await router.get(Tasks).onApplicationBootstrap();
    const failed = await waitFor(() =>
      tasks.find((t) => t.channelId === channelId && t.data.status === 'failed'),
    );
    expect(failed.data).toEqual(expect.objectContaining({ taskId, agentType: 'coding' }));
    const notice = await waitFor(() =>
      discord.of('send-message', channelId).find((c) => c.data.purpose === 'notice'),
    );
    expect(notice.data).toEqual(
      expect.objectContaining({ asAgentId: 'molt', replyToMessageId: asked }),
    );
    expect(notice.data.content).toMatch(/did not finish/);
    expect((await em.fork().findOneOrFail(RouterTaskRow, { taskId })).status).toBe('failed');
  });
});
