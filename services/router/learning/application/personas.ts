import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  DomainError,
  ErrorCodes,
  type FieldError,
  type PersonaGetRequest,
  type PersonaHistoryRequest,
  type PersonaHistoryResult,
  type PersonaListRequest,
  type PersonaRollbackRequest,
  type PersonaUpsertRequest,
  type PersonaVersionsResult,
} from '@dirigent/contracts';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import {
  mergePersona,
  personaChanges,
  personaProblems,
  withPersona,
  type AgentPersona,
  type Persona,
  type PersonaPatch,
} from '@dirigent/router-domain';
import type { RouterConfig } from '../../config';
import { Agents } from '../../application/agents';
import { RouterOutbox } from '../../application/clients';
import { PersonaStore, type PersonaRecord } from './ports';

const DISPOSITION_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const view = (r: PersonaRecord): Persona & { cause: string; at: string } => ({
  agentId: r.agentId,
  version: r.version,
  ...r.content,
  cause: r.cause,
  at: r.at.toISOString(),
});

/**
 * The built-in agents' personas (docs/architecture.md, "Persona"): seeded from the YAML on
 * first start only, read by every turn (the active version), edited, listed and rolled back
 * by `Subjects.admin.persona*`; every new version announces `persona.changed`.
 */
@Injectable()
export class Personas {
  private readonly log = new Logger('router:persona');

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
    private readonly agents: Agents,
    private readonly store: PersonaStore,
    private readonly outbox: RouterOutbox,
    private readonly clock: Clock,
  ) {}

  /** At start: version 1 for every agent that has none (afterwards the database wins). */
  async seed(): Promise<string[]> {
    const seeded: string[] = [];
    for (const { agentId, content } of this.config.personaSeeds()) {
      if (await this.store.seed(agentId, content, new Date(this.clock.now()))) seeded.push(agentId);
    }
    if (seeded.length) this.log.log(`personas seeded from the YAML: ${seeded.join(', ')}`);
    return seeded;
  }

  /** The agent with its active persona's constraints (the YAML's until one is stored). */
  async forTurn(agent: AgentPersona): Promise<AgentPersona> {
    const p = await this.store.active(agent.id);
    return p ? withPersona(agent, { agentId: p.agentId, version: p.version, ...p.content }) : agent;
  }

  private async activeOf(agentId: string): Promise<PersonaRecord> {
    const p = this.agents.get(agentId) ? await this.store.active(agentId) : null;
    if (!p) throw new DomainError(ErrorCodes.NOT_FOUND, `no persona for agent ${agentId}`);
    return p;
  }

  async get(r: PersonaGetRequest) {
    return view(await this.activeOf(r.agentId));
  }

  async list(r: PersonaListRequest) {
    const ids = this.agents.all.map((a) => a.id).filter((id) => !r.agentId || id === r.agentId);
    const all = await Promise.all(ids.map((id) => this.store.active(id)));
    return { personas: all.flatMap((p) => (p ? [view(p)] : [])) };
  }

  async versions(r: PersonaGetRequest): Promise<PersonaVersionsResult> {
    await this.activeOf(r.agentId);
    const rows = await this.store.versions(r.agentId, 1000);
    return {
      versions: rows.map((v) => ({
        version: v.version,
        at: v.at.toISOString(),
        cause: v.cause,
        ...(v.causeId ? { causeId: v.causeId } : {}),
      })),
    };
  }

  async history(r: PersonaHistoryRequest): Promise<PersonaHistoryResult> {
    await this.activeOf(r.agentId);
    const limit = r.limit ?? 200;
    const [rows, signals] = await Promise.all([
      this.store.versions(r.agentId, limit),
      this.store.signals(r.agentId, limit),
    ]);
    return {
      agentId: r.agentId,
      versions: rows.reverse().map((v) => ({
        version: v.version,
        at: v.at.toISOString(),
        cause: v.cause,
        ...(v.causeId ? { causeId: v.causeId } : {}),
        dispositionWeights: v.content.dispositionWeights,
      })),
      signals,
    };
  }

  async upsert(r: PersonaUpsertRequest) {
    await this.activeOf(r.agentId);
    const patch = r as unknown as PersonaPatch;
    const weightErrors = Object.entries(r.dispositionWeights ?? {}).flatMap(
      ([id, w]): FieldError[] =>
        DISPOSITION_ID.test(id) && typeof w === 'number'
          ? []
          : [
              {
                field: `dispositionWeights.${id}`,
                messages: [`dispositionWeights.${id} must be a number keyed by a disposition id`],
              },
            ],
    );
    if (weightErrors.length) throw badRequest(weightErrors);
    return this.write(r.agentId, 'admin', undefined, (active) => mergePersona(active, patch));
  }

  async rollback(r: PersonaRollbackRequest) {
    await this.activeOf(r.agentId);
    const old = await this.store.version(r.agentId, r.version);
    if (!old) {
      throw new DomainError(ErrorCodes.NOT_FOUND, `agent ${r.agentId} has no version ${r.version}`);
    }
    return this.write(r.agentId, 'rollback', String(r.version), () => old.content);
  }

  private async write(
    agentId: string,
    cause: 'admin' | 'rollback',
    causeId: string | undefined,
    next: (active: PersonaRecord['content']) => PersonaRecord['content'],
  ) {
    let problems: FieldError[] = [];
    const done = await this.store.write(
      agentId,
      (active) => {
        const content = next(active.content);
        problems = personaProblems(content).map((p) => ({ field: p.field, messages: [p.message] }));
        return problems.length ? null : { content, cause, ...(causeId ? { causeId } : {}) };
      },
      new Date(this.clock.now()),
    );
    if (problems.length) throw badRequest(problems);
    if (!done) throw new DomainError(ErrorCodes.NOT_FOUND, `no persona for agent ${agentId}`);
    await this.announce(done.previous, done.written);
    return view(done.written);
  }

  /** `persona.changed` for a version just written. */
  async announce(previous: PersonaRecord, written: PersonaRecord): Promise<void> {
    await this.outbox.personaChanged({
      agentId: written.agentId,
      version: written.version,
      previousVersion: previous.version,
      cause: written.cause === 'seed' ? 'admin' : written.cause,
      changes: personaChanges(previous.content, written.content),
    });
  }
}

function badRequest(errors: FieldError[]): DomainError {
  return new DomainError(
    ErrorCodes.BAD_REQUEST,
    `invalid persona: ${errors.map((e) => e.field).join(', ')}`,
    errors,
  );
}
