import type { INestApplication } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Subjects, type RouterDecision } from '@dirigent/contracts';
import type { FakeChannel } from '@dirigent/discord-fake';
import { waitFor } from '@dirigent/testing';
import {
  startHarness,
  newChannel,
  foreignMessage,
  type Harness,
} from '../../../discord-ingest/test/harness';
import { startGateway, type RunningGateway } from '../../../llm-gateway/test/harness';
import { startRouterApp } from '../../test/harness';
import { OrchestratorRun } from '../adapters/postgres/orchestrator-run.entity';
import { gatewayConfig, ScriptedUpstream, type ScriptedAnswer } from './scripted-upstream';

const toolResults = (body: any) =>
  body.messages
    .filter((m: any) => m.role === 'tool')
    .map((m: any) => JSON.parse(m.content) as Record<string, any>);

/**
 * The orchestrator (Molt) with the skill catalog as tools, through the real gateway and the
 * real Discord ingest against the local Discord: the same rules as the synthesizer (at most
 * four tool rounds, every call recorded on the decision, the turn's guild only, bad arguments
 * a tool error the model reads), and delegations still running as before.
 */
describe('orchestrator: skills as tools', () => {
  let h: Harness;
  let upstream: ScriptedUpstream;
  let gateway: RunningGateway;
  let router: INestApplication;
  let channel: FakeChannel;

  beforeAll(async () => {
    h = await startHarness();
    channel = newChannel(h, 'molt-skills');
    upstream = await ScriptedUpstream.start();
    gateway = await startGateway(gatewayConfig(upstream));
    router = await startRouterApp(
      [
        'agents:',
        '  - { id: molt, name: Molt, orchestrator: true }',
        'speculative: { enabled: false }',
        'followups: { enabled: false }',
        'orchestrator:',
        '  agents:',
        '    coding: { enabled: false }',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await router?.close();
    await gateway?.close();
    await upstream?.close();
    await h?.stop();
  });

  const ask = (content: string) =>
    h.discord.postMessage({
      channelId: channel.id,
      authorId: h.alice.id,
      content: `molt, ${content}`,
    });
  const decisionOf = (messageId: string) =>
    waitFor(
      async () => {
        const r = await h.nats.request<{ decisions: RouterDecision[] }>(
          Subjects.router.decisionsList,
          { guildId: h.guild.id, channelId: channel.id },
        );
        return r.ok ? r.data.decisions.find((d) => d.inboundMessageId === messageId) : undefined;
      },
      60_000,
      100,
      'the orchestrator decision',
    );
  const botSaid = (text: RegExp) =>
    waitFor(
      () => h.discord.channelMessages(channel.id).find((m) => text.test(m.content)),
      60_000,
      50,
      `a message matching ${text}`,
    );
  const orchestratorCalls = () => upstream.seen.filter((s) => s.model === 'orch-up');

  it('offers the catalog next to the delegations, runs a call, feeds the result back, records it', async () => {
    const topic = h.discord.postMessage({
      channelId: channel.id,
      authorId: h.alice.id,
      content: 'we ship on friday',
    });
    upstream.script = (body): ScriptedAnswer => {
      if (body.model !== 'orch-up') return { content: 'general answer' };
      const done = toolResults(body);
      if (done.length === 0)
        return {
          toolCalls: [
            { name: 'dice', arguments: { notation: '2d6+1' } },
            { name: 'pin_moment', arguments: { messageId: topic.id } },
          ],
        };
      return { content: `rolled ${done[0].result.total}, pinned: ${done[1].result.pinned}` };
    };
    const asked = ask('roll 2d6+1 and pin the friday message');
    const d = await decisionOf(asked.id);
    expect(d.chosen).toBe('orchestrator');
    expect(d.toolCalls).toEqual([
      expect.objectContaining({
        skillId: 'dice',
        args: { notation: '2d6+1' },
        status: 'done',
        result: expect.objectContaining({ notation: '2d6+1' }),
        ms: expect.any(Number),
      }),
      expect.objectContaining({ skillId: 'pin_moment', status: 'done' }),
    ]);
    const total = (d.toolCalls![0].result as { total: number }).total;
    await botSaid(new RegExp(`^rolled ${total}, pinned: true$`));
    expect(h.discord.channelMessages(channel.id).find((m) => m.id === topic.id)?.pinned).toBe(true);

    const [first, second] = orchestratorCalls().slice(-2);
    const names = first.body.tools.map((t: any) => t.function.name);
    expect(names.slice(0, 2)).toEqual(['delegate_to_research', 'delegate_to_general']);
    expect(names).toEqual(expect.arrayContaining(['dice', 'poll', 'create_thread', 'pin_moment']));
    expect(first.body.tool_choice).toBe('auto');
    expect(second.body.messages.filter((m: any) => m.role === 'tool')).toHaveLength(2);

    const em = router.get(MikroORM).em.fork();
    const row = await waitFor(() =>
      em.findOne(OrchestratorRun, { inboundMessageId: asked.id, agentType: 'orchestrator' }),
    );
    expect(row.toolCalls?.map((c) => c.skillId)).toEqual(['dice', 'pin_moment']);
  });

  it('gives bad arguments and unknown tools back as tool errors, then delegates as before', async () => {
    upstream.script = (body): ScriptedAnswer => {
      if (body.model !== 'orch-up') return { content: 'the general agent answers' };
      const done = toolResults(body);
      if (done.length === 0)
        return {
          toolCalls: [
            { name: 'dice', arguments: { notation: 'lots' } },
            { name: 'teleport', arguments: {} },
          ],
        };
      return {
        toolCalls: [{ name: 'delegate_to_general', arguments: { task: done[0].error } }],
      };
    };
    const asked = ask('roll lots of dice');
    const d = await decisionOf(asked.id);
    expect(d.toolCalls).toEqual([
      expect.objectContaining({
        skillId: 'dice',
        status: 'error',
        error: expect.stringMatching(/^BAD_REQUEST args\.notation/),
      }),
      expect.objectContaining({
        skillId: 'teleport',
        status: 'error',
        error: expect.stringMatching(/^NOT_FOUND/),
      }),
    ]);
    expect(d.subagents).toEqual(['general']);
    await botSaid(/^the general agent answers$/);
    const delegated = upstream.seen.filter((s) => s.model === 'general-up').at(-1)!;
    expect(JSON.stringify(delegated.body.messages)).toContain('BAD_REQUEST args.notation');
  });

  it('stops after four tool rounds and asks for text', async () => {
    upstream.script = (body): ScriptedAnswer => {
      if (body.model !== 'orch-up') return { content: 'n/a' };
      if (body.tool_choice === 'none') return { content: 'enough rolling' };
      return { toolCalls: [{ name: 'dice', arguments: { notation: 'd4' } }] };
    };
    const before = orchestratorCalls().length;
    const asked = ask('roll d4 forever');
    const d = await decisionOf(asked.id);
    expect(d.toolCalls).toHaveLength(4);
    await botSaid(/^enough rolling$/);
    expect(orchestratorCalls().length - before).toBe(5);
  });

  it('acts only in the guild of its turn', async () => {
    const { channel: theirs, message: msg } = foreignMessage(h);
    upstream.script = (body): ScriptedAnswer => {
      if (body.model !== 'orch-up') return { content: 'n/a' };
      const done = toolResults(body);
      if (done.length === 0)
        return {
          toolCalls: [
            { name: 'pin_moment', arguments: { channelId: theirs.id, messageId: msg.id } },
          ],
        };
      return { content: `could not: ${done[0].error}` };
    };
    const asked = ask('pin that message over there');
    const d = await decisionOf(asked.id);
    expect(d.toolCalls).toEqual([expect.objectContaining({ status: 'error' })]);
    await botSaid(/^could not: (NOT_FOUND|FORBIDDEN)/);
    expect(h.discord.channelMessages(theirs.id)[0].pinned).toBeFalsy();
  });

  it('turns a confirm-class call into a proposal, whatever the model says', async () => {
    upstream.script = (body): ScriptedAnswer => {
      if (body.model !== 'orch-up') return { content: 'n/a' };
      const done = toolResults(body);
      if (done.length === 0)
        return {
          toolCalls: [{ name: 'create_channel', arguments: { name: 'announcements' } }],
        };
      return { content: `status ${done[0].status}` };
    };
    const asked = ask('make an announcements channel, no need to ask anyone');
    const d = await decisionOf(asked.id);
    expect(d.toolCalls).toEqual([
      expect.objectContaining({
        skillId: 'create_channel',
        status: 'proposed',
        proposalId: expect.any(String),
      }),
    ]);
    await botSaid(/^status proposed$/);
    expect([...h.discord.channels.values()].some((c) => c.name === 'announcements')).toBe(false);
  });
});
