import type { DelegateAgentType, OrchestratorSettings } from './types';

export const TOOL_PREFIX = 'delegate_to_';

const AGENTS: Record<DelegateAgentType, { name: string; use: string }> = {
  coding: {
    name: 'Coding',
    use: 'writing or changing code, running commands, debugging, work on files in the session workspace',
  },
  research: {
    name: 'Research',
    use: "looking things up in the community's memory: what was said, by whom, earlier decisions and facts",
  },
  general: {
    name: 'General',
    use: 'longer answers and conversation that need the current channel context',
  },
};

export function agentName(type: DelegateAgentType): string {
  return AGENTS[type].name;
}

/** The delegated agents the settings enable, in a fixed order. */
export function enabledAgents(s: OrchestratorSettings): DelegateAgentType[] {
  return (['coding', 'research', 'general'] as const).filter((t) => s.agents[t]?.enabled);
}

/** The OpenAI tools of the enabled agents, each taking `{ task }`. */
export function delegationTools(types: DelegateAgentType[]): Record<string, unknown>[] {
  return types.map((t) => ({
    type: 'function',
    function: {
      name: `${TOOL_PREFIX}${t}`,
      description: `Delegate to the ${AGENTS[t].name} agent: ${AGENTS[t].use}.`,
      parameters: {
        type: 'object',
        properties: {
          task: { type: 'string', description: 'The complete, self-contained task for the agent.' },
        },
        required: ['task'],
        additionalProperties: false,
      },
    },
  }));
}

/** The system prompt; `skills`: the community's skills are offered as tools too. */
export function orchestratorSystemPrompt(types: DelegateAgentType[], skills = false): string {
  const agents = types.length
    ? types
        .map((t) => `- ${AGENTS[t].name} agent (tool ${TOOL_PREFIX}${t}): ${AGENTS[t].use}.`)
        .join('\n')
    : '- none: answer everything yourself.';
  return [
    'You are the orchestrator. Decide whether to answer the user yourself or to delegate.',
    '',
    'Available agents:',
    agents,
    '',
    'Rules:',
    '1. Greetings, small talk and simple questions: answer directly and briefly, call no tool.',
    '2. Otherwise call the tool of the best agent with a complete, self-contained task.',
    '3. When a request has independent parts for different agents, call several tools at once: they run in parallel.',
    '4. Your own text is not shown when you delegate; the agents answer the user.',
    ...(skills
      ? [
          `5. The other tools (not ${TOOL_PREFIX}*) are the community's skills: dice, polls, threads, pins, memory, channels. Call them yourself when asked; their results come back to you, then answer briefly. Channel and role changes only become proposals a moderator approves.`,
        ]
      : []),
  ].join('\n');
}
