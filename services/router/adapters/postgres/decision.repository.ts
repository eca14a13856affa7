import { EntityManager } from '@mikro-orm/postgresql';
import type { RouterDecision } from '@dirigent/contracts';
import { DecisionLog, type DecisionFilter, type SubagentRun } from '../../application/stores';
import { DecisionRow } from './decision.entity';
import { SubagentRunRow } from './subagent-run.entity';

function toDecision(r: DecisionRow): RouterDecision {
  return {
    decisionId: r.decisionId,
    guildId: r.guildId,
    channelId: r.channelId,
    agentId: r.agentId,
    trigger: r.trigger as RouterDecision['trigger'],
    ...(r.inboundMessageId ? { inboundMessageId: r.inboundMessageId } : {}),
    ...(r.parentDecisionId ? { parentDecisionId: r.parentDecisionId } : {}),
    ...(r.followupId ? { followupId: r.followupId } : {}),
    candidates: r.candidates,
    chosen: r.chosen,
    seed: r.seed,
    dimensions: r.dimensions as unknown as RouterDecision['dimensions'],
    subagents: r.subagents,
    beats: r.beats,
    ...(r.reaction ? { reaction: r.reaction } : {}),
    ...(r.followup ? { followup: r.followup } : {}),
    ...(r.interrupted ? { interrupted: r.interrupted } : {}),
    ...(r.lineage ? { lineage: r.lineage } : {}),
    ...(r.inputs ? { inputs: r.inputs } : {}),
    ...(r.lensSwap ? { lensSwap: r.lensSwap } : {}),
    ...(r.undelivered ? { undelivered: r.undelivered } : {}),
    ...(r.personaVersion !== null ? { personaVersion: r.personaVersion } : {}),
    ...(r.toolCalls?.length ? { toolCalls: r.toolCalls } : {}),
    latencyMs: r.latencyMs,
    ...(r.timings ? { timings: r.timings } : {}),
    costUsd: r.costUsd,
    models: r.models,
    at: r.at.toISOString(),
  };
}

/** `disposition_decisions` and `subagent_runs`. */
export class PostgresDecisionLog extends DecisionLog {
  constructor(private readonly em: EntityManager) {
    super();
  }

  async save(d: RouterDecision, runs: SubagentRun[]): Promise<void> {
    const em = this.em.fork();
    em.create(DecisionRow, {
      ...d,
      inboundMessageId: d.inboundMessageId ?? null,
      parentDecisionId: d.parentDecisionId ?? null,
      followupId: d.followupId ?? null,
      reaction: d.reaction ?? null,
      followup: d.followup ?? null,
      interrupted: d.interrupted ?? null,
      lineage: d.lineage ?? null,
      inputs: d.inputs ?? null,
      lensSwap: d.lensSwap ?? null,
      undelivered: d.undelivered ?? null,
      personaVersion: d.personaVersion ?? null,
      timings: d.timings ?? null,
      toolCalls: d.toolCalls ?? null,
      dimensions: { ...d.dimensions },
      at: new Date(d.at),
    });
    for (const r of runs) {
      em.create(SubagentRunRow, {
        decisionId: d.decisionId,
        persona: r.persona,
        lens: r.lens,
        status: r.status,
        durationMs: Math.round(r.durationMs),
        model: r.model ?? null,
        costUsd: r.costUsd,
        output: r.output,
      } as SubagentRunRow);
    }
    await em.flush();
  }

  async update(
    decisionId: string,
    patch: Partial<
      Pick<RouterDecision, 'interrupted' | 'followup' | 'beats' | 'undelivered' | 'reaction'>
    >,
  ): Promise<void> {
    await this.em.fork().nativeUpdate(DecisionRow, { decisionId }, patch as Partial<DecisionRow>);
  }

  async get(decisionId: string): Promise<RouterDecision | null> {
    const row = await this.em.fork().findOne(DecisionRow, { decisionId });
    return row ? toDecision(row) : null;
  }

  async decidedOn(inboundMessageId: string, agentId: string): Promise<boolean> {
    return (await this.em.fork().count(DecisionRow, { inboundMessageId, agentId })) > 0;
  }

  async ofFollowup(followupId: string): Promise<RouterDecision | null> {
    const row = await this.em.fork().findOne(DecisionRow, { followupId });
    return row ? toDecision(row) : null;
  }

  async list(f: DecisionFilter): Promise<RouterDecision[]> {
    const rows = await this.em.fork().find(
      DecisionRow,
      {
        guildId: f.guildId,
        ...(f.channelId ? { channelId: f.channelId } : {}),
        ...(f.agentId ? { agentId: f.agentId } : {}),
        ...(f.dispositionId ? { chosen: f.dispositionId } : {}),
        ...(f.trigger ? { trigger: f.trigger } : {}),
      },
      { orderBy: { at: 'desc', decisionId: 'desc' }, limit: f.limit },
    );
    return rows.map(toDecision);
  }
}
