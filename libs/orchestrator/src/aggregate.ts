import type { AgentResult, OrchestrateResult } from './types';

/**
 * The seed's `aggregateResults`: one result is answered with its output, several are
 * labelled by agent; an `error` result becomes an `isError` payload. No second model round.
 */
export function aggregateResults(
  results: AgentResult[],
  orchestratorModel: string,
): OrchestrateResult {
  const payloads: OrchestrateResult['payloads'] = [];
  for (const r of results) {
    if (r.status === 'error') {
      payloads.push({
        text: `**${r.agentName} Error:**\n${r.errorMessage || r.output}`,
        isError: true,
      });
    } else {
      payloads.push({ text: results.length > 1 ? `**${r.agentName}:**\n${r.output}` : r.output });
    }
  }
  return {
    payloads,
    agentResults: results,
    meta: {
      durationMs: results.length ? Math.max(...results.map((r) => r.durationMs)) : 0,
      orchestratorModel,
      delegatedAgents: results.map((r) => r.agentType),
    },
  };
}
