import { Orchestrator } from './orchestrator';
import type { ChatCall, ChatPort, MemoryPort, OrchestratorSettings } from './types';

const settings = (over: Partial<OrchestratorSettings> = {}): OrchestratorSettings => ({
  parallelExecution: true,
  maxParallelAgents: 2,
  workspace: '/tmp/unused',
  agents: { general: { enabled: true }, research: { enabled: true } },
  ...over,
});

const noMemory: MemoryPort = { search: async () => null, liveContext: async () => null };

/** The orchestrator model delegates `n` general tasks; each general call takes 30 ms. */
class ScriptedChat implements ChatPort {
  running = 0;
  peak = 0;
  calls: ChatCall[] = [];
  constructor(private readonly tasks: string[]) {}
  async chat(call: ChatCall) {
    this.calls.push(call);
    if (call.purpose === 'orchestrate') {
      return {
        content: this.tasks.length ? '' : 'hi!',
        model: 'orch-model',
        toolCalls: this.tasks.map((task, i) => ({
          id: `c${i}`,
          function: { name: 'delegate_to_general', arguments: JSON.stringify({ task }) },
        })),
      };
    }
    this.running++;
    this.peak = Math.max(this.peak, this.running);
    await new Promise((r) => setTimeout(r, 30));
    this.running--;
    return {
      content: `did ${(call.body.messages as any[])[1].content}`,
      model: 'g',
      toolCalls: [],
    };
  }
}

describe('Orchestrator', () => {
  it('answers directly without delegating', async () => {
    const chat = new ScriptedChat([]);
    const { result, runs } = await new Orchestrator(settings(), chat, noMemory).run({
      guildId: '1',
      text: 'hello',
    });
    expect(result.payloads).toEqual([{ text: 'hi!' }]);
    expect(result.agentResults[0]).toEqual(
      expect.objectContaining({
        agentType: 'orchestrator',
        status: 'success',
        model: 'orch-model',
      }),
    );
    expect(result.meta.delegatedAgents).toEqual([]);
    expect(runs).toEqual([]);
    expect(chat.calls).toHaveLength(1);
  });

  it('runs at most maxParallelAgents at once, in the order of the calls, with no second model round', async () => {
    const chat = new ScriptedChat(['a', 'b', 'c', 'd', 'e']);
    const { result } = await new Orchestrator(settings(), chat, noMemory).run({
      guildId: '1',
      text: 'five things',
    });
    expect(chat.peak).toBe(2);
    expect(result.payloads.map((p) => p.text)).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((t) => `**General:**\ndid ${t}`),
    );
    expect(chat.calls.filter((c) => c.purpose === 'orchestrate')).toHaveLength(1);
  });

  it('runs one at a time without parallelExecution', async () => {
    const chat = new ScriptedChat(['a', 'b', 'c']);
    await new Orchestrator(settings({ parallelExecution: false }), chat, noMemory).run({
      guildId: '1',
      text: 'three things',
    });
    expect(chat.peak).toBe(1);
  });

  it('reports a failed orchestrator call as an error payload', async () => {
    const failing: ChatPort = {
      chat: async () => {
        throw new Error('model gateway: BUDGET_EXHAUSTED: no budget');
      },
    };
    const { result } = await new Orchestrator(settings(), failing, noMemory).run({
      guildId: '1',
      text: 'x',
    });
    expect(result.payloads).toEqual([
      {
        text: '**orchestrator Error:**\nmodel gateway: BUDGET_EXHAUSTED: no budget',
        isError: true,
      },
    ]);
  });
});
