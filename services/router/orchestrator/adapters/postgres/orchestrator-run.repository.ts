import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { RouterDecision } from '@dirigent/contracts';
import { splitForDiscord, type AgentRun } from '@dirigent/orchestrator';
import { DecisionLog, type SubagentRun } from '../../../application/stores';
import { OrchestrationLog, type OrchestrationRecord } from '../../application/ports';
import { OrchestratorRun } from './orchestrator-run.entity';

/** What a row keeps of an agent's output (the answer itself went to the asker). */
const OUTPUT_KEPT = 8000;
/** The decision log's word for what the orchestrator chose (it is not a disposition). */
const ORCHESTRATOR = 'orchestrator';

/**
 * Orchestrations in `orchestrator_runs` (one row for the decision, one per delegated run,
 * with tokens); one started by a Discord mention also lands in the router's decision log
 * (`disposition_decisions` + `subagent_runs`, what `Subjects.router.decisionsList` shows),
 * through the router's `DecisionLog`.
 */
@Injectable()
export class PostgresOrchestrationLog extends OrchestrationLog {
  constructor(
    private readonly em: EntityManager,
    private readonly decisions: DecisionLog,
  ) {
    super();
  }

  async record(r: OrchestrationRecord): Promise<void> {
    const em = this.em.fork();
    const row = (run: AgentRun, input: string) =>
      em.create(OrchestratorRun, {
        id: randomUUID(),
        orchestrationId: r.id,
        at: r.at,
        guildId: r.guildId,
        channelId: r.channelId ?? null,
        trigger: r.trigger,
        agentId: r.agentId ?? null,
        inboundMessageId: r.inboundMessageId ?? null,
        agentType: run.agentType,
        agentName: run.agentName.slice(0, 64),
        status: run.status,
        input,
        output: run.output.slice(0, OUTPUT_KEPT),
        errorMessage: run.errorMessage?.slice(0, OUTPUT_KEPT) ?? null,
        durationMs: run.durationMs,
        model: run.model ?? null,
        inputTokens: run.tokenUsage?.input ?? null,
        outputTokens: run.tokenUsage?.output ?? null,
        costUsd: run.costUsd ?? null,
        wallMs: r.wallMs,
        cancelled: r.cancelled,
      });
    row(r.decision, r.text).toolCalls = r.toolCalls.length ? r.toolCalls : null;
    for (const run of r.runs) row(run, run.task ?? '');
    await em.flush();
    if (r.trigger === 'discord' && r.channelId && r.agentId) {
      await this.decisions.save(asDecision(r, r.channelId, r.agentId), r.runs.map(asSubagentRun));
    }
  }
}

function asSubagentRun(run: AgentRun): SubagentRun {
  return {
    persona: run.agentType,
    lens: ORCHESTRATOR,
    status: run.status === 'partial' ? 'success' : run.status,
    durationMs: run.durationMs,
    ...(run.model ? { model: run.model } : {}),
    costUsd: run.costUsd ?? 0,
    output: (run.output || run.errorMessage || '').slice(0, OUTPUT_KEPT),
  };
}

function asDecision(r: OrchestrationRecord, channelId: string, agentId: string): RouterDecision {
  const all = [r.decision, ...r.runs];
  return {
    decisionId: r.id,
    guildId: r.guildId,
    channelId,
    agentId,
    trigger: 'reactive',
    ...(r.inboundMessageId ? { inboundMessageId: r.inboundMessageId } : {}),
    candidates: [{ dispositionId: ORCHESTRATOR, score: 1 }],
    chosen: ORCHESTRATOR,
    seed: r.inboundMessageId ?? r.id,
    dimensions: {
      reasoningDepth: ORCHESTRATOR,
      contextStrategy: ORCHESTRATOR,
      voice: ORCHESTRATOR,
      outputShape: ORCHESTRATOR,
      searchPosture: ORCHESTRATOR,
      riskAppetite: ORCHESTRATOR,
    },
    subagents: r.runs.map((x) => x.agentType),
    ...(r.toolCalls.length ? { toolCalls: r.toolCalls } : {}),
    beats: r.cancelled
      ? []
      : r.payloads.flatMap((p) => splitForDiscord(p.text)).map((text) => ({ text })),
    ...(r.personaVersion !== undefined ? { personaVersion: r.personaVersion } : {}),
    latencyMs: r.wallMs,
    costUsd: all.reduce((sum, x) => sum + (x.costUsd ?? 0), 0),
    models: [...new Set(all.flatMap((x) => (x.model ? [x.model] : [])))],
    at: r.at.toISOString(),
  };
}
