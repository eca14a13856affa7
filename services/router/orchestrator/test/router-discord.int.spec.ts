import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Durables, Streams, subject, Subjects, type RouterDecision } from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, snowflake, testMessaging, waitFor } from '@dirigent/testing';
import { startGateway, type RunningGateway } from '../../../llm-gateway/test/harness';
import { FakeDiscord } from '../../test/fake-discord';
import { OrchestratorRun } from '../adapters/postgres/orchestrator-run.entity';
import { startRouterWithMolt } from './harness';
import { gatewayConfig, ScriptedUpstream } from './scripted-upstream';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The Discord path through the router itself: a mention of an agent with `orchestrator: true`. */
describe('router: an orchestrator agent in Discord', () => {
  const moltUserId = snowflake();
  let lateAnswer = Promise.resolve();
  const guildId = snowflake();
  let upstream: ScriptedUpstream;
  let gateway: RunningGateway;
  let router: INestApplication;
  let m: Messaging;
  let discord: FakeDiscord;
  let workspace: string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    upstream.script = (body) => {
      const text = body.messages.find((x: any) => x.role === 'user')?.content as string;
      if (body.model !== 'orch-up') return { content: `general on ${text}` };
      if (text === 'hello there') return { content: 'Hello!' };
      if (text === 'gate me') return { content: 'As an AI model I think pizza wins.' };
      if (text === 'leak it') return { content: 'the password is hunter2' };
      if (text === 'late answer') return { content: 'Here it is.', until: lateAnswer };
      const task = text.startsWith('hang') ? 'hang' : text;
      return { toolCalls: [{ name: 'delegate_to_coding', arguments: { task } }] };
    };
    gateway = await startGateway(gatewayConfig(upstream));
    ({ router, workspace } = await startRouterWithMolt({
      moltUserId,
      orchestrator: ['  maxParallelAgents: 2'],
    }));
    m = await testMessaging('router-orchestrator-test');
    discord = new FakeDiscord(m);
    await discord.start();
  });

  afterAll(async () => {
    await discord.stop();
    await router.close();
    await gateway.close();
    await upstream.close();
    await closeMessaging(m);
  });

  const replies = (channelId: string) =>
    discord.of('send-message', channelId).filter((c) => c.data.purpose === 'agent-reply');

  it('answers a mention through the orchestrator: typing, a notice, the CLI answer as the agent, logged', async () => {
    const channelId = snowflake();
    const asked = await discord.human(guildId, channelId, `<@${moltUserId}> build the thing`, {
      mentions: [moltUserId],
    });
    await waitFor(() => replies(channelId).length > 0, 20_000);
    expect(replies(channelId)[0].data).toEqual(
      expect.objectContaining({
        content: 'argc=2 task=build the thing',
        asAgentId: 'molt',
        replyToMessageId: asked.messageId,
      }),
    );
    expect(discord.of('typing', channelId).length).toBeGreaterThan(0);
    const notice = discord.of('send-message', channelId).find((c) => c.data.purpose === 'notice');
    expect(notice?.data.content).toMatch(/working on it \(coding\)/i);

    const em = router.get(MikroORM).em.fork();
    const rows = await waitFor(async () => {
      const r = await em.find(OrchestratorRun, { channelId });
      return r.length === 2 ? r : undefined;
    });
    expect(rows.map((r) => [r.agentType, r.trigger, r.agentId, r.inboundMessageId]).sort()).toEqual(
      [
        ['coding', 'discord', 'molt', asked.messageId],
        ['orchestrator', 'discord', 'molt', asked.messageId],
      ],
    );
    // The decision is recorded once the orchestration ends, which may be after the answer.
    const listed = await waitFor(async () => {
      const r = await m.request<{ decisions: RouterDecision[] }>(Subjects.router.decisionsList, {
        guildId,
        channelId,
      });
      return r.ok && r.data.decisions.length ? r : undefined;
    });
    expect(listed.ok && listed.data.decisions).toEqual([
      expect.objectContaining({
        agentId: 'molt',
        trigger: 'reactive',
        inboundMessageId: asked.messageId,
        chosen: 'orchestrator',
        subagents: ['coding'],
        beats: [{ text: 'argc=2 task=build the thing' }],
        models: ['orch'],
      }),
    ]);
    if (listed.ok) expect(listed.data.decisions[0].costUsd).toBeGreaterThan(0);
  });

  it('answers a greeting directly, with no notice', async () => {
    const channelId = snowflake();
    await discord.human(guildId, channelId, `<@${moltUserId}> hello there`, {
      mentions: [moltUserId],
    });
    await waitFor(() => replies(channelId).length > 0, 20_000);
    expect(replies(channelId).map((c) => c.data.content)).toEqual(['Hello!']);
    expect(discord.of('send-message', channelId).some((c) => c.data.purpose === 'notice')).toBe(
      false,
    );
  });

  it('passes its answers through its persona: banned phrases cut, never-do suppressed, version recorded', async () => {
    const set = await m.request<{ version: number }>(Subjects.admin.personaUpsert, {
      agentId: 'molt',
      bannedPhrases: ['as an AI model'],
      neverDo: ['/password/i'],
    });
    expect(set.ok).toBe(true);
    const version = set.ok ? set.data.version : -1;
    const decisionIn = (channelId: string) =>
      waitFor(async () => {
        const r = await m.request<{ decisions: RouterDecision[] }>(Subjects.router.decisionsList, {
          guildId,
          channelId,
        });
        return r.ok ? r.data.decisions[0] : undefined;
      });
    const cut = snowflake();
    await discord.human(guildId, cut, `<@${moltUserId}> gate me`, { mentions: [moltUserId] });
    await waitFor(() => replies(cut).length > 0, 20_000);
    expect(replies(cut).map((c) => c.data.content)).toEqual(['I think pizza wins.']);
    expect(await decisionIn(cut)).toMatchObject({
      agentId: 'molt',
      personaVersion: version,
      beats: [{ text: 'I think pizza wins.' }],
    });
    const leak = snowflake();
    await discord.human(guildId, leak, `<@${moltUserId}> leak it`, { mentions: [moltUserId] });
    expect(await decisionIn(leak)).toMatchObject({ personaVersion: version, beats: [] });
    expect(replies(leak)).toEqual([]);
    await m.request(Subjects.admin.personaUpsert, {
      agentId: 'molt',
      bannedPhrases: [],
      neverDo: [],
    });
  });

  it('takes a place in the bots’ run: at a full run its answer is a reaction, not a fourth message', async () => {
    const events: { subject: string; data: any }[] = [];
    const sub = m.client.nc.subscribe(Subjects.router.evtAll, {
      callback: (_e, msg) => {
        events.push({ subject: msg.subject, data: msg.json<any>().data });
      },
    });
    let release!: () => void;
    lateAnswer = new Promise<void>((r) => (release = r));
    const channelId = snowflake();
    const asked = await discord.human(guildId, channelId, `<@${moltUserId}> late answer`, {
      mentions: [moltUserId],
    });
    // While Molt's answer is on its way, other bots fill the run of three.
    for (let i = 0; i < 3; i++) {
      await discord.human(guildId, channelId, `chatter ${i}`, {
        authorId: snowflake(),
        authorIsBot: true,
      });
    }
    await waitFor(async () => {
      const i = await m.client.jsm.consumers.info(
        Streams.discordEvents,
        Durables.routerDiscordEvents,
      );
      return i.num_pending === 0 && i.num_ack_pending === 0;
    });
    release();
    const held = await waitFor(() =>
      events.find((e) => e.subject.endsWith(`${channelId}.held-back`)),
    );
    sub.unsubscribe();
    expect(held.data).toMatchObject({
      agentId: 'molt',
      inboundMessageId: asked.messageId,
      sent: 0,
      withheld: 1,
      reaction: '👀',
    });
    expect(discord.of('add-reaction', channelId).map((c) => c.data.messageId)).toEqual([
      asked.messageId,
    ]);
    expect(replies(channelId)).toEqual([]);
  });

  it('stops when the asker deletes the message: the CLI group is killed and nothing is answered', async () => {
    const channelId = snowflake();
    const asked = await discord.human(guildId, channelId, `<@${moltUserId}> hang around`, {
      mentions: [moltUserId],
    });
    const pidFile = join(workspace, 'orchestrator', channelId, 'grandchild.pid');
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim(), 20_000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    await m.publishEvent(
      subject.discordEvent(guildId, channelId, 'message.deleted'),
      'message.deleted',
      { guildId, channelId, messageId: asked.messageId },
      { id: `discord:deleted:${asked.messageId}` },
    );
    await waitFor(() => !alive(pid), 10_000);
    const em = router.get(MikroORM).em.fork();
    const rows = await waitFor(async () => {
      const r = await em.find(OrchestratorRun, { channelId });
      return r.length === 2 ? r : undefined;
    });
    expect(rows.every((r) => r.cancelled)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(replies(channelId)).toEqual([]);
  });
});
