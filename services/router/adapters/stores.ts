import { EntityManager } from '@mikro-orm/postgresql';
import type { DispositionUpsertRequest, RouterDecision } from '@dirigent/contracts';
import type { Disposition } from '@dirigent/router-domain';
import {
  DecisionLog,
  DispositionStore,
  FollowupStore,
  type DecisionFilter,
  type FollowupRecord,
  type SubagentRun,
} from '../application/ports';
import { DecisionRow, DispositionRow, FollowupRow, SubagentRunRow } from './entities';

const CACHE_MS = 2000;

function toDisposition(r: DispositionRow): Disposition {
  return {
    id: r.id,
    name: r.name,
    reasoningDepth: r.reasoningDepth as Disposition['reasoningDepth'],
    contextStrategy: r.contextStrategy,
    voice: r.voice as Disposition['voice'],
    outputShape: r.outputShape as Disposition['outputShape'],
    searchPosture: r.searchPosture as Disposition['searchPosture'],
    riskAppetite: r.riskAppetite as Disposition['riskAppetite'],
    ...(r.speculativeOnly ? { speculativeOnly: true } : {}),
    ...(r.selfFollowupHint ? { selfFollowupHint: r.selfFollowupHint } : {}),
    weight: r.weight,
  };
}

/** `dispositions`, cached briefly for the routing path; edits clear the cache. */
export class PostgresDispositions extends DispositionStore {
  private cache?: { at: number; list: Promise<Disposition[]> };

  constructor(private readonly em: EntityManager) {
    super();
  }

  list(): Promise<Disposition[]> {
    if (this.cache && Date.now() - this.cache.at < CACHE_MS) return this.cache.list;
    const list = this.em
      .fork()
      .find(DispositionRow, {}, { orderBy: { id: 'asc' } })
      .then((rows) => rows.map(toDisposition));
    this.cache = { at: Date.now(), list };
    list.catch(() => (this.cache = undefined));
    return list;
  }

  async upsert(patch: DispositionUpsertRequest): Promise<Disposition> {
    const em = this.em.fork();
    let row = await em.findOne(DispositionRow, { id: patch.id });
    const fields = Object.fromEntries(
      Object.entries(patch).filter(([k, v]) => k !== 'id' && v !== undefined),
    ) as Partial<DispositionRow>;
    if (!row) {
      const missing = [
        'reasoningDepth',
        'contextStrategy',
        'voice',
        'outputShape',
        'searchPosture',
      ].filter((k) => (fields as Record<string, unknown>)[k] === undefined);
      if (missing.length) throw new MissingFields(missing);
      row = em.create(DispositionRow, {
        id: patch.id,
        name: patch.name ?? patch.id,
        riskAppetite: 'safe',
        ...fields,
      } as DispositionRow);
    } else {
      em.assign(row, fields);
    }
    row.updatedAt = new Date();
    await em.flush();
    this.cache = undefined;
    return toDisposition(row);
  }

  async remove(id: string): Promise<boolean> {
    const n = await this.em.fork().nativeDelete(DispositionRow, { id });
    this.cache = undefined;
    return n > 0;
  }
}

/** A new disposition needs every dimension. */
export class MissingFields extends Error {
  constructor(readonly fields: string[]) {
    super(`a new disposition needs ${fields.join(', ')}`);
  }
}

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
    latencyMs: r.latencyMs,
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
    patch: Partial<Pick<RouterDecision, 'interrupted' | 'followup' | 'beats'>>,
  ): Promise<void> {
    await this.em.fork().nativeUpdate(DecisionRow, { decisionId }, patch as Partial<DecisionRow>);
  }

  async get(decisionId: string): Promise<RouterDecision | null> {
    const row = await this.em.fork().findOne(DecisionRow, { decisionId });
    return row ? toDecision(row) : null;
  }

  async list(f: DecisionFilter): Promise<RouterDecision[]> {
    const rows = await this.em.fork().find(
      DecisionRow,
      {
        guildId: f.guildId,
        ...(f.channelId ? { channelId: f.channelId } : {}),
        ...(f.dispositionId ? { chosen: f.dispositionId } : {}),
        ...(f.trigger ? { trigger: f.trigger } : {}),
      },
      { orderBy: { at: 'desc', decisionId: 'desc' }, limit: f.limit },
    );
    return rows.map(toDecision);
  }
}

/** `self_followup_schedules`. */
export class PostgresFollowups extends FollowupStore {
  constructor(private readonly em: EntityManager) {
    super();
  }

  async create(f: FollowupRecord): Promise<void> {
    const em = this.em.fork();
    em.create(FollowupRow, { ...f, reason: f.reason ?? null, firedDecisionId: null });
    await em.flush();
  }

  async get(followupId: string): Promise<FollowupRecord | null> {
    const r = await this.em.fork().findOne(FollowupRow, { followupId });
    if (!r) return null;
    return {
      followupId: r.followupId,
      parentDecisionId: r.parentDecisionId,
      guildId: r.guildId,
      channelId: r.channelId,
      agentId: r.agentId,
      bias: r.bias,
      dueAt: r.dueAt,
      status: r.status,
      ...(r.reason ? { reason: r.reason } : {}),
      botMessageIds: r.botMessageIds,
      createdAt: r.createdAt,
    };
  }

  async settle(
    followupId: string,
    status: 'fired' | 'aborted',
    reason?: string,
    firedDecisionId?: string,
  ): Promise<boolean> {
    const n = await this.em
      .fork()
      .nativeUpdate(
        FollowupRow,
        { followupId, status: 'scheduled' },
        { status, reason: reason ?? null, firedDecisionId: firedDecisionId ?? null },
      );
    return n > 0;
  }
}
