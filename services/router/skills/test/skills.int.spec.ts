import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Subjects, type RouterDecision } from '@dirigent/contracts';
import type { FakeChannel } from '@dirigent/discord-fake';
import { CANONICAL_DISPOSITIONS } from '@dirigent/router-domain';
import { startServiceApp } from '@dirigent/service-kit';
import { testDatabaseUrl, testNatsUrl, waitFor } from '@dirigent/testing';
import {
  startHarness,
  newChannel,
  foreignMessage,
  type Harness,
} from '../../../discord-ingest/test/harness';
import { FakeUpstream } from '../../../llm-gateway/test/fake-upstreams';
import { startGateway, type RunningGateway } from '../../../llm-gateway/test/harness';
import { ScriptedUpstream, type ScriptedAnswer } from '../../orchestrator/test/scripted-upstream';
import { RouterService } from '../../router.module';

/** Every router purpose on the scripted OpenAI upstream; synthesis falls back to Anthropic. */
function gatewayConfig(scripted: ScriptedUpstream, anthropic: FakeUpstream) {
  const model = (id: string, provider: string) => ({
    id,
    provider,
    upstream: `${id}-up`,
    inputUsdPerMTok: 1,
    outputUsdPerMTok: 2,
    contextWindow: 128000,
  });
  const scriptedFirst = { model: 'synth', fallbacks: ['claude'] };
  return {
    providers: [
      { id: 'scripted', kind: 'openai', baseUrl: scripted.baseUrl },
      {
        id: 'anth',
        kind: 'anthropic',
        baseUrl: anthropic.baseUrl,
        apiKeyEnv: 'TEST_ANTHROPIC_KEY',
      },
    ],
    models: [model('synth', 'scripted'), model('claude', 'anth')],
    purposes: {
      'synth-low': scriptedFirst,
      'synth-mid': scriptedFirst,
      'synth-high': scriptedFirst,
      'subagent-research': { model: 'synth', fallbacks: [] },
      'router-classify': { model: 'synth', fallbacks: [] },
      agent: { model: 'synth', fallbacks: [] },
      orchestrate: { model: 'synth', fallbacks: [] },
    },
    budgets: { defaultGuildUsdPerDay: 100 },
    reliability: { timeoutMs: 10000, retries: 0 },
  };
}

/**
 * The walled-garden skills through NATS with the real gateway and the real Discord ingest
 * against the local Discord: `skills.list`, `skill.invoke` (done, refused, unknown, guild
 * isolation) and the synthesizer's tool calls (a scripted OpenAI-compatible upstream, then
 * an Anthropic-speaking one), each recorded on the decision.
 */
describe('router skills (walled garden)', () => {
  let h: Harness;
  let scripted: ScriptedUpstream;
  let anthropic: FakeUpstream;
  let gateway: RunningGateway;
  let router: INestApplication;
  let channel: FakeChannel;
  const decisions: RouterDecision[] = [];

  const request = async (subject: string, data: unknown): Promise<any> =>
    h.nats.request<any>(subject, data, 20_000);
  const invoke = (skillId: string, args: unknown, over: Record<string, unknown> = {}) =>
    request(Subjects.router.skillInvoke, {
      guildId: h.guild.id,
      channelId: channel.id,
      skillId,
      tool: skillId,
      args,
      actor: { userId: h.alice.id },
      ...over,
    });

  beforeAll(async () => {
    h = await startHarness();
    channel = newChannel(h, 'skills');
    scripted = await ScriptedUpstream.start();
    anthropic = await FakeUpstream.start('anthropic');
    gateway = await startGateway(gatewayConfig(scripted, anthropic));
    const dir = mkdtempSync(join(tmpdir(), 'router-skills-'));
    writeFileSync(
      join(dir, 'router.yaml'),
      'agents:\n  - { id: dit, name: Dit }\nspeculative: { enabled: false }\nfollowups: { enabled: false }\n',
    );
    ({ app: router } = await startServiceApp(RouterService, {
      NATS_URL: testNatsUrl(),
      DATABASE_URL: testDatabaseUrl(),
      LOG_LEVEL: 'silent',
      ROUTER_PORT: '0',
      DIRIGENT_ROUTER_CONFIG: join(dir, 'router.yaml'),
      DIRIGENT_WORKSPACE: dir,
    }));
    h.nats.client.nc.subscribe(Subjects.router.decisionAll, {
      callback: (_e, m) => void decisions.push(m.json<{ data: RouterDecision }>().data),
    });
    // One speaking disposition: a mention is answered by the synthesizer, in one line.
    for (const d of CANONICAL_DISPOSITIONS) {
      const r = await request(Subjects.admin.dispositionUpsert, {
        id: d.id,
        weight: d.id === 'quick-react' ? 1 : 0,
      });
      expect(r.ok).toBe(true);
    }
  });

  afterAll(async () => {
    await router?.close();
    await gateway?.close();
    await scripted?.close();
    await anthropic?.close();
    await h?.stop();
  });

  it('lists the bundle with its cost classes', async () => {
    const r = await request(Subjects.router.skillsList, {});
    expect(r.ok).toBe(true);
    const byId = Object.fromEntries(r.data.skills.map((s: any) => [s.id, s]));
    expect(Object.keys(byId).sort()).toEqual(
      [
        'archive_channel',
        'create_channel',
        'create_thread',
        'define',
        'dice',
        'gif',
        'manage_roles',
        'memory_search',
        'pin_moment',
        'poll',
        'propose_restructure',
        'recall_group',
        'recall_user',
        'remind',
        'summarize_window',
        'time',
        'weather',
      ].sort(),
    );
    expect(byId.dice).toEqual(
      expect.objectContaining({ costClass: 'direct', tools: ['dice'], permissions: [] }),
    );
    expect(byId.manage_roles.costClass).toBe('confirm');
  });

  it('rolls dice through skill.invoke', async () => {
    const r = await invoke('dice', { notation: '3d6+2' });
    expect(r.ok).toBe(true);
    expect(r.data.status).toBe('done');
    const { notation, rolls, total } = r.data.result;
    expect(notation).toBe('3d6+2');
    expect(rolls).toHaveLength(3);
    expect(total).toBe(rolls.reduce((a: number, b: number) => a + b, 0) + 2);
  });

  it('refuses bad arguments naming the field, unknown skills and bad requests', async () => {
    const bad = await invoke('dice', { notation: 'lots' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(bad.error.message).toMatch(/^args\.notation: /);
    const extra = await invoke('poll', { question: 'q?', options: ['a', 'b'], guildId: '1' });
    expect(extra.error).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('args.guildId'),
    });
    const unknown = await invoke('horoscope', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const noGuild = await invoke('dice', { notation: 'd6' }, { guildId: 'nope' });
    expect(noGuild).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(JSON.stringify(noGuild.error.details)).toContain('guildId');
  });

  it('opens a native poll, a thread and pins a message in the local Discord', async () => {
    const polled = await invoke('poll', { question: 'Lunch?', options: ['pizza', 'tacos'] });
    expect(polled).toMatchObject({ ok: true, data: { status: 'done' } });
    const pollMsg = h.discord
      .channelMessages(channel.id)
      .find((m) => m.id === polled.data.result.messageId);
    expect(pollMsg?.poll).toEqual(
      expect.objectContaining({ question: 'Lunch?', answers: ['pizza', 'tacos'] }),
    );

    const topic = h.discord.postMessage({
      channelId: channel.id,
      authorId: h.alice.id,
      content: 'side plan',
    });
    const thread = await invoke('create_thread', { name: 'side plan', messageId: topic.id });
    expect(thread).toMatchObject({ ok: true, data: { status: 'done' } });
    const made = h.discord.channels.get(thread.data.result.threadId);
    expect(made).toEqual(
      expect.objectContaining({ name: 'side plan', parentId: channel.id, guildId: h.guild.id }),
    );

    const pinned = await invoke('pin_moment', { messageId: topic.id });
    expect(pinned).toMatchObject({ ok: true, data: { status: 'done', result: { pinned: true } } });
    expect(h.discord.channelMessages(channel.id).find((m) => m.id === topic.id)?.pinned).toBe(true);
  });

  it('acts only in the guild of the call', async () => {
    const { channel: theirs, message: msg } = foreignMessage(h);
    const pin = await invoke('pin_moment', { channelId: theirs.id, messageId: msg.id });
    expect(pin.ok).toBe(false);
    expect(['NOT_FOUND', 'FORBIDDEN']).toContain(pin.error.code);
    expect(h.discord.channelMessages(theirs.id)[0].pinned).toBeFalsy();
    const thread = await invoke('create_thread', { channelId: theirs.id, name: 'sneaky' });
    expect(thread.ok).toBe(false);
    expect([...h.discord.channels.values()].some((c) => c.name === 'sneaky')).toBe(false);
  });

  it('turns a confirm-class call into a steward proposal, never an action', async () => {
    const r = await invoke(
      'manage_roles',
      { action: 'create', roleName: 'regulars' },
      { reason: 'asked' },
    );
    expect(r).toMatchObject({
      ok: true,
      data: { status: 'proposed', proposalId: expect.any(String) },
    });
    const listed = await waitFor(
      async () => {
        const l = await request(Subjects.steward.proposalsList, { guildId: h.guild.id });
        return l.ok && l.data.proposals.find((p: any) => p.proposalId === r.data.proposalId);
      },
      30_000,
      100,
      'the proposal in the read model',
    );
    expect(listed).toEqual(
      expect.objectContaining({
        skillId: 'manage_roles',
        tool: 'manage_roles',
        status: 'pending',
        requestedBy: { userId: h.alice.id },
      }),
    );
    expect([...h.discord.guild(h.guild.id).roles.values()].some((x) => x.name === 'regulars')).toBe(
      false,
    );
  });

  const mention = (content: string) =>
    h.discord.postMessage({ channelId: channel.id, authorId: h.alice.id, content });
  const decisionOf = (messageId: string) =>
    waitFor(() => decisions.find((d) => d.inboundMessageId === messageId), 60_000, 50, 'decision');
  const botSaid = (text: RegExp) =>
    waitFor(
      () => h.discord.channelMessages(channel.id).find((m) => text.test(m.content)),
      60_000,
      50,
      `a reply matching ${text}`,
    );

  it('runs a model tool call, feeds the result back and records it on the decision', async () => {
    scripted.script = (body): ScriptedAnswer => {
      if (!body.tools) return { content: 'research notes' };
      const result = body.messages.find((m: any) => m.role === 'tool');
      if (!result) return { toolCalls: [{ name: 'dice', arguments: { notation: '2d6+1' } }] };
      const { result: r } = JSON.parse(result.content);
      return { content: `rolled ${r.total} (${r.rolls.join('+')}+1)` };
    };
    const asked = mention('dit, roll 2d6+1 for me');
    const d = await decisionOf(asked.id);
    expect(d.toolCalls).toEqual([
      expect.objectContaining({
        skillId: 'dice',
        tool: 'dice',
        args: { notation: '2d6+1' },
        status: 'done',
        result: expect.objectContaining({ notation: '2d6+1' }),
        ms: expect.any(Number),
      }),
    ]);
    const total = (d.toolCalls![0].result as { total: number }).total;
    await botSaid(new RegExp(`^rolled ${total} `));
    const synth = scripted.seen.filter((s) => s.body.tools);
    expect(synth.at(-2)!.body.tools.map((t: any) => t.function.name)).toContain('poll');
    expect(synth.at(-2)!.body.tool_choice).toBe('auto');
  });

  it('gives bad model arguments back to the model as a tool error, never a crash', async () => {
    scripted.script = (body): ScriptedAnswer => {
      if (!body.tools) return { content: 'research notes' };
      const result = body.messages.find((m: any) => m.role === 'tool');
      if (!result) return { toolCalls: [{ name: 'dice', arguments: '{"notation": 7' }] };
      return { content: `sorry: ${JSON.parse(result.content).error}` };
    };
    const asked = mention('dit, roll something weird');
    const d = await decisionOf(asked.id);
    expect(d.toolCalls).toEqual([
      expect.objectContaining({
        skillId: 'dice',
        status: 'error',
        error: expect.stringMatching(/^BAD_REQUEST args/),
      }),
    ]);
    await botSaid(/^sorry: BAD_REQUEST args: the arguments must be a JSON object/);
  });

  it('stops after four tool rounds and asks for text', async () => {
    scripted.script = (body): ScriptedAnswer => {
      if (!body.tools) return { content: 'research notes' };
      if (body.tool_choice === 'none') return { content: 'enough dice' };
      return { toolCalls: [{ name: 'dice', arguments: { notation: 'd4' } }] };
    };
    const asked = mention('dit, roll forever');
    const d = await decisionOf(asked.id);
    expect(d.toolCalls).toHaveLength(4);
    await botSaid(/^enough dice$/);
  });

  it('speaks Anthropic too: tool_use in, tool_result back, the answer out', async () => {
    // The scripted upstream fails the synthesizer, so the gateway falls back to Anthropic.
    scripted.script = (body): ScriptedAnswer =>
      body.tools ? { status: 500 } : { content: 'research notes' };
    anthropic.behave = (seen) => {
      const toolResult = seen.body.messages
        .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
        .find((b: any) => b.type === 'tool_result');
      if (!toolResult)
        return { kind: 'ok', toolCall: { name: 'dice', arguments: { notation: '1d8' } } };
      const { result } = JSON.parse(toolResult.content);
      return { kind: 'ok', text: `claude rolled ${result.total}` };
    };
    const asked = mention('dit, roll a d8 the anthropic way');
    const d = await decisionOf(asked.id);
    expect(d.toolCalls).toEqual([
      expect.objectContaining({ skillId: 'dice', args: { notation: '1d8' }, status: 'done' }),
    ]);
    const total = (d.toolCalls![0].result as { total: number }).total;
    await botSaid(new RegExp(`^claude rolled ${total}$`));
    const first = anthropic.seen.find((s) => s.body.tools)!;
    expect(first.body.tools.find((t: any) => t.name === 'dice').input_schema).toEqual(
      expect.objectContaining({ required: ['notation'] }),
    );
  });
});
