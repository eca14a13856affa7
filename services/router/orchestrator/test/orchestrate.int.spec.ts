import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import {
  MemorySearchRequest,
  Subjects,
  type MessageCreated,
  type OrchestrateResult,
} from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import { closeMessaging, snowflake, testMessaging, waitFor } from '@dirigent/testing';
import { startGateway, type RunningGateway } from '../../../llm-gateway/test/harness';
import { splitForDiscord } from '@dirigent/orchestrator';
import { OrchestratorRun } from '../adapters/postgres/orchestrator-run.entity';
import { OrchestrateInDiscord } from '../application/orchestrate-in-discord';
import { startOrchestrator, testOrchestratorConfig } from './harness';
import { gatewayConfig, ScriptedUpstream, type ScriptedAnswer } from './scripted-upstream';

type Plan = ScriptedAnswer['toolCalls'] | string;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('orchestrator: the tool loop through the real gateway', () => {
  let upstream: ScriptedUpstream;
  let gateway: RunningGateway;
  let host: Awaited<ReturnType<typeof startOrchestrator>>;
  let m: Messaging;
  const guildId = snowflake();
  /** What the orchestrator model does with a user text. */
  const plans = new Map<string, Plan>();
  /** How long the research and general models take, by task. */
  const delays = new Map<string, number>();
  const answers = new Map<string, string>();

  const user = (body: any) => body.messages.find((x: any) => x.role === 'user')?.content as string;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    upstream.script = (body) => {
      const text = user(body);
      if (body.model === 'orch-up') {
        const plan = plans.get(text) ?? `direct: ${text}`;
        return typeof plan === 'string'
          ? { content: plan }
          : { content: null as any, toolCalls: plan };
      }
      const who = body.model === 'research-up' ? 'research' : 'general';
      return { content: answers.get(text) ?? `${who} on ${text}`, delayMs: delays.get(text) ?? 0 };
    };
    gateway = await startGateway(gatewayConfig(upstream));
    host = await startOrchestrator(testOrchestratorConfig());
    m = await testMessaging('orchestrator-test');
  });

  afterAll(async () => {
    await closeMessaging(m);
    await host.close();
    await gateway.close();
    await upstream.close();
  });

  const orchestrate = async (data: Record<string, unknown>, timeoutMs = 60_000) => {
    const reply = await m.request<OrchestrateResult>(Subjects.router.orchestrate, data, timeoutMs);
    if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
    return reply.data;
  };

  it('answers directly when the model calls no tool, offering only the enabled agents as tools', async () => {
    const channelId = snowflake();
    plans.set('hello!', 'Hi, how can I help?');
    const r = await orchestrate({ guildId, channelId, text: 'hello!' });
    expect(r.payloads).toEqual([{ text: 'Hi, how can I help?' }]);
    expect(r.agentResults).toEqual([
      expect.objectContaining({
        agentName: 'orchestrator',
        agentType: 'orchestrator',
        status: 'success',
        output: 'Hi, how can I help?',
        model: 'orch',
        tokenUsage: { input: 100, output: 20 },
      }),
    ]);
    expect(r.meta).toEqual(
      expect.objectContaining({ orchestratorModel: 'orch', delegatedAgents: [] }),
    );
    const call = upstream.seen.filter((s) => s.model === 'orch-up').at(-1)!.body;
    expect(call.tools.map((t: any) => t.function.name)).toEqual([
      'delegate_to_coding',
      'delegate_to_research',
      'delegate_to_general',
    ]);
    expect(call.tools[0].function.parameters.required).toEqual(['task']);
  });

  it('delegates one coding task: the CLI gets the task as one argument, in the session directory, kept across calls', async () => {
    const channelId = snowflake();
    const task = 'say "hi"; rm -rf / $(id) `whoami`';
    plans.set('code it', [{ name: 'delegate_to_coding', arguments: { task } }]);
    const r = await orchestrate({ guildId, channelId, text: 'code it' });
    expect(r.payloads).toEqual([{ text: `argc=2 task=${task}\n` }]);
    expect(r.agentResults).toEqual([
      expect.objectContaining({ agentName: 'Coding', agentType: 'coding', status: 'success' }),
    ]);
    expect(r.meta.delegatedAgents).toEqual(['coding']);

    plans.set('note a', [{ name: 'delegate_to_coding', arguments: { task: 'remember:a' } }]);
    plans.set('note b', [{ name: 'delegate_to_coding', arguments: { task: 'remember:b' } }]);
    await orchestrate({ guildId, channelId, text: 'note a' });
    const second = await orchestrate({ guildId, channelId, text: 'note b' });
    expect(second.payloads[0].text).toBe('a\nb\n');
    expect(readFileSync(join(host.workspace, 'orchestrator', channelId, 'notes.txt'), 'utf8')).toBe(
      'a\nb\n',
    );
    // Another session starts from an empty directory.
    const other = await orchestrate({ guildId, channelId, text: 'note a', sessionId: '../x' });
    expect(other.payloads[0].text).toBe('a\n');
    expect(existsSync(join(host.workspace, 'x'))).toBe(false);
  });

  it('runs several agents in parallel: wall time follows the slowest, results labelled by agent', async () => {
    const channelId = snowflake();
    delays.set('research slowly', 2000);
    delays.set('chat slowly', 2000);
    plans.set('all three', [
      { name: 'delegate_to_coding', arguments: { task: 'sleep:3' } },
      { name: 'delegate_to_research', arguments: { task: 'research slowly' } },
      { name: 'delegate_to_general', arguments: { task: 'chat slowly' } },
    ]);
    const started = Date.now();
    const r = await orchestrate({ guildId, channelId, text: 'all three' });
    const wall = Date.now() - started;
    const each = r.agentResults.map((a) => `${a.agentType} ${a.durationMs} ms`).join(', ');
    console.log(
      `parallel delegation: wall ${wall} ms; agents: ${each}; sum ${r.agentResults.reduce((s, a) => s + a.durationMs, 0)} ms; meta.durationMs ${r.meta.durationMs}`,
    );
    expect(r.payloads.map((p) => p.text.split('\n')[0])).toEqual([
      '**Coding:**',
      '**Research:**',
      '**General:**',
    ]);
    expect(r.payloads[1].text).toBe('**Research:**\nresearch on research slowly');
    expect(r.meta.delegatedAgents).toEqual(['coding', 'research', 'general']);
    expect(r.agentResults.every((a) => a.status === 'success')).toBe(true);
    expect(r.agentResults[1]).toEqual(expect.objectContaining({ model: 'research' }));
    // Sequential would take 7 s and more; a generous bound for a loaded machine.
    expect(wall).toBeLessThan(6500);
  });

  it('kills the whole process group at the timeout and reports timeout', async () => {
    const channelId = snowflake();
    plans.set('hang please', [{ name: 'delegate_to_coding', arguments: { task: 'hang' } }]);
    const started = Date.now();
    const r = await orchestrate({ guildId, channelId, text: 'hang please', timeoutMs: 1500 });
    console.log(`timeout: answered after ${Date.now() - started} ms`);
    expect(r.agentResults[0]).toEqual(
      expect.objectContaining({ agentType: 'coding', status: 'timeout' }),
    );
    expect(r.payloads[0].text).toMatch(/timed out after 1500 ms/);
    const pid = Number(
      readFileSync(join(host.workspace, 'orchestrator', channelId, 'grandchild.pid'), 'utf8'),
    );
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => !alive(pid), 5000);
    expect(alive(pid)).toBe(false);
  });

  it('reports a failing CLI as an error payload with its stderr, and cuts long output', async () => {
    plans.set('break it', [{ name: 'delegate_to_coding', arguments: { task: 'fail' } }]);
    const r = await orchestrate({ guildId, channelId: snowflake(), text: 'break it' });
    expect(r.agentResults[0].status).toBe('error');
    expect(r.agentResults[0].errorMessage).toMatch(
      /exited with code 3:\nfake-cli: the build is broken/,
    );
    expect(r.payloads).toEqual([
      {
        text: expect.stringMatching(/^\*\*Coding Error:\*\*\n.*the build is broken/s),
        isError: true,
      },
    ]);

    plans.set('flood', [{ name: 'delegate_to_coding', arguments: { task: 'big' } }]);
    const big = await orchestrate({ guildId, channelId: snowflake(), text: 'flood' });
    expect(big.payloads[0].text.startsWith('x'.repeat(65536))).toBe(true);
    expect(big.payloads[0].text).toMatch(/\[output cut at 64 KiB\]$/);
    expect(big.payloads[0].text.length).toBeLessThan(65536 + 100);
  });

  it('answers an unknown tool or a missing task with an error result, not a crash', async () => {
    plans.set('weird', [
      { name: 'delegate_to_nobody', arguments: { task: 'x' } },
      { name: 'delegate_to_general', arguments: '{"task":' },
    ]);
    const r = await orchestrate({ guildId, channelId: snowflake(), text: 'weird' });
    expect(r.agentResults.map((a) => a.status)).toEqual(['error', 'error']);
    expect(r.payloads.every((p) => p.isError)).toBe(true);
  });

  it('refuses bad input with BAD_REQUEST and field errors', async () => {
    const reply = await m.request(Subjects.router.orchestrate, {
      guildId: 'not-a-guild',
      text: '',
      timeoutMs: -1,
    });
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe('BAD_REQUEST');
    const fields = (reply.error.details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(['guildId', 'text', 'timeoutMs']);
  });

  it('records the decision and every agent run with duration, model and tokens', async () => {
    const channelId = snowflake();
    plans.set('log me', [
      { name: 'delegate_to_coding', arguments: { task: 'logged task' } },
      { name: 'delegate_to_general', arguments: { task: 'logged chat' } },
    ]);
    await orchestrate({ guildId, channelId, text: 'log me' });
    const em = host.app.get(MikroORM).em.fork();
    const rows = await em.find(OrchestratorRun, { channelId }, { orderBy: { agentType: 'asc' } });
    expect(rows.map((r) => [r.agentType, r.status, r.input])).toEqual([
      ['coding', 'success', 'logged task'],
      ['general', 'success', 'logged chat'],
      ['orchestrator', 'success', 'log me'],
    ]);
    expect(new Set(rows.map((r) => r.orchestrationId)).size).toBe(1);
    const general = rows.find((r) => r.agentType === 'general')!;
    expect(general).toEqual(
      expect.objectContaining({
        model: 'general',
        inputTokens: 100,
        outputTokens: 20,
        trigger: 'request',
      }),
    );
    expect(rows.every((r) => r.durationMs >= 0 && r.wallMs >= r.durationMs)).toBe(true);
    // 100 tokens in at $1/M and 20 out at $2/M, as the gateway settled it.
    expect(Number(general.costUsd)).toBeCloseTo(0.00014, 6);
    expect(rows.find((r) => r.agentType === 'coding')!.costUsd).toBeNull();
  });

  describe('in Discord', () => {
    const agent = { id: 'molt', name: 'Molt', discordUserId: snowflake() };
    const commands: { subject: string; data: any }[] = [];
    let sub: { unsubscribe(): void };

    beforeAll(async () => {
      sub = m.client.nc.subscribe(Subjects.discord.cmdAll, {
        callback: (_e, msg) => {
          const env = msg.json<{ data: any }>();
          commands.push({ subject: msg.subject, data: env.data });
        },
      });
      // The server has the subscription before the first test publishes (the first typing
      // command was missed now and then: CI at 73dfb7e).
      await m.client.nc.flush();
    });
    afterAll(() => sub.unsubscribe());

    const message = (channelId: string, content: string): MessageCreated => ({
      guildId,
      channelId,
      messageId: snowflake(),
      authorId: snowflake(),
      authorIsBot: false,
      content,
      createdAt: new Date().toISOString(),
      mentions: [agent.discordUserId],
    });
    const inChannel = (channelId: string) => commands.filter((c) => c.data.channelId === channelId);

    it('types, says it is working, then answers as the agent in messages of at most 2,000 characters', async () => {
      const channelId = snowflake();
      const long =
        Array.from({ length: 700 }, (_, i) => `w${i}`).join(' ') + '\n' + 'y'.repeat(2500);
      answers.set('write a long essay', long);
      plans.set('write a long essay', [
        { name: 'delegate_to_general', arguments: { task: 'write a long essay' } },
      ]);
      const msg = message(channelId, `<@${agent.discordUserId}> write a long essay`);
      await host.app.get(OrchestrateInDiscord).run(agent, msg);
      await waitFor(
        () =>
          inChannel(channelId).filter((c) => c.data.purpose === 'agent-reply').length >=
          splitForDiscord(long).length,
      );
      const seen = inChannel(channelId);
      expect(seen[0].subject).toBe(Subjects.discord.cmdTyping);
      const notice = seen.find((c) => c.data.purpose === 'notice')!;
      expect(notice.data).toEqual(
        expect.objectContaining({ asAgentId: 'molt', replyToMessageId: msg.messageId }),
      );
      expect(notice.data.content).toMatch(/working on it/i);
      const replies = seen.filter((c) => c.data.purpose === 'agent-reply').map((c) => c.data);
      expect(replies.every((r) => r.asAgentId === 'molt' && r.content.length <= 2000)).toBe(true);
      expect(replies.map((r) => r.content)).toEqual(splitForDiscord(long));
      expect(replies.length).toBe(4);
      // The mention is not part of the task.
      const orch = upstream.seen.filter((s) => s.model === 'orch-up').at(-1)!.body;
      expect(user(orch)).toBe('write a long essay');
    });

    it('cancels when the asker deletes the message: the CLI is killed, no answer is sent', async () => {
      const channelId = snowflake();
      plans.set('hang for discord', [{ name: 'delegate_to_coding', arguments: { task: 'hang' } }]);
      const msg = message(channelId, 'Molt: hang for discord');
      msg.content = '@Molt hang for discord';
      const discord = host.app.get(OrchestrateInDiscord);
      const run = discord.run(agent, msg);
      const pidFile = join(host.workspace, 'orchestrator', channelId, 'grandchild.pid');
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim().length > 0);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(discord.cancel(msg.messageId)).toBe(true);
      const started = Date.now();
      await run;
      console.log(`cancel: run ended ${Date.now() - started} ms after the deletion`);
      await waitFor(() => !alive(pid), 5000);
      await new Promise((r) => setTimeout(r, 300));
      expect(inChannel(channelId).filter((c) => c.data.purpose === 'agent-reply')).toEqual([]);
      expect(inChannel(channelId).some((c) => c.data.purpose === 'notice')).toBe(true);
    });
  });

  it('degrades to no memory, and gives the research agent memory hits when memory answers', async () => {
    plans.set('what did we decide', [
      { name: 'delegate_to_research', arguments: { task: 'what did we decide' } },
    ]);
    await orchestrate({ guildId, channelId: snowflake(), text: 'what did we decide' });
    let research = upstream.seen.filter((s) => s.model === 'research-up').at(-1)!.body;
    expect(research.messages[0].content).toMatch(/Memory had nothing/);

    m.serve(Subjects.memory.search, {
      payload: MemorySearchRequest,
      handler: async (r: MemorySearchRequest) => ({
        hits: [
          {
            layer: 'archive',
            id: '1',
            text: `we decided on ${r.query}: tabs`,
            at: '2026-01-01T00:00:00Z',
            score: 1,
          },
        ],
      }),
    });
    await new Promise((r) => setTimeout(r, 200));
    await orchestrate({ guildId, channelId: snowflake(), text: 'what did we decide' });
    research = upstream.seen.filter((s) => s.model === 'research-up').at(-1)!.body;
    expect(research.messages[0].content).toMatch(/we decided on what did we decide: tabs/);
  });
});

describe('orchestrator: a coding CLI that cannot run', () => {
  it('starts anyway and answers every coding call with an error result', async () => {
    const upstream = await ScriptedUpstream.start();
    upstream.script = (body) =>
      body.model === 'orch-up'
        ? { toolCalls: [{ name: 'delegate_to_coding', arguments: { task: 'x' } }] }
        : { content: 'n/a' };
    const gateway = await startGateway(gatewayConfig(upstream));
    const host = await startOrchestrator(
      testOrchestratorConfig({ binary: '/nonexistent/coding-cli' }),
    );
    const m = await testMessaging('orchestrator-test-2');
    try {
      const reply = await m.request<OrchestrateResult>(
        Subjects.router.orchestrate,
        { guildId: snowflake(), text: 'code' },
        30_000,
      );
      expect(reply.ok).toBe(true);
      if (!reply.ok) return;
      expect(reply.data.agentResults[0]).toEqual(
        expect.objectContaining({ agentType: 'coding', status: 'error' }),
      );
      expect(reply.data.payloads[0]).toEqual({
        text: expect.stringMatching(/coding CLI unavailable: \/nonexistent\/coding-cli is missing/),
        isError: true,
      });
    } finally {
      await closeMessaging(m);
      await host.close();
      await gateway.close();
      await upstream.close();
    }
  });
});

describe('orchestrator: stopping the service', () => {
  it('kills the coding CLIs still running, with their process groups', async () => {
    const upstream = await ScriptedUpstream.start();
    upstream.script = (body) =>
      body.model === 'orch-up'
        ? { toolCalls: [{ name: 'delegate_to_coding', arguments: { task: 'hang' } }] }
        : { content: 'n/a' };
    const gateway = await startGateway(gatewayConfig(upstream));
    const host = await startOrchestrator(testOrchestratorConfig());
    const m = await testMessaging('orchestrator-test-3');
    const channelId = snowflake();
    try {
      const pending = m.request(
        Subjects.router.orchestrate,
        { guildId: snowflake(), channelId, text: 'hang' },
        5000,
      );
      const pidFile = join(host.workspace, 'orchestrator', channelId, 'grandchild.pid');
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim());
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(alive(pid)).toBe(true);
      const stopping = Date.now();
      await host.close();
      await waitFor(() => !alive(pid), 5000);
      console.log(
        `shutdown: the CLI group was gone ${Date.now() - stopping} ms after the stop began`,
      );
      await pending;
    } finally {
      await closeMessaging(m);
      await gateway.close();
      await upstream.close();
    }
  });
});
