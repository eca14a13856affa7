import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type { OrchestrateRequest, OrchestrateResult } from '@dirigent/contracts';
import {
  binaryProblem,
  Orchestrator,
  type AgentRun,
  type ChatPort,
  type Delegation,
  type DelegateAgentType,
  type MemoryPort,
  type OrchestrateInput,
  type Orchestration,
  type OrchestrationPlan,
  type OrchestratorSettings,
} from '@dirigent/orchestrator';
import { OrchestrationLog, type OrchestrationRecord } from './ports';
import type { TurnSkills } from '@dirigent/skills';
import { CHAT_PORT, MEMORY_PORT, ORCHESTRATOR_SETTINGS, SKILLS_PORT } from './tokens';

/** The research and general agents' model call limit (the library's default). */
const MODEL_AGENT_TIMEOUT_MS = 120_000;
/** How long a stop waits for runs that were just cancelled to finish and be recorded. */
const SHUTDOWN_WAIT_MS = 5000;

export interface OrchestrationSource {
  /** The orchestration's id (its decision's), when the caller names it before it ends. */
  id?: string;
  trigger: OrchestrationRecord['trigger'];
  agentId?: string;
  inboundMessageId?: string;
  /** The orchestrating agent's persona version its answers passed. */
  personaVersion?: number;
}

/**
 * Answers or delegates one request (the library's tool loop) and records the decision
 * with every agent run. Checks the coding CLI once at start: a missing binary is one
 * warning line, and each call to the coding agent then reports an `error` result.
 */
@Injectable()
export class Orchestrate implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger('orchestrator');
  private readonly orchestrator: Orchestrator;
  /** The CLIs run detached: stopping the service must stop them too. */
  private readonly shutdown = new AbortController();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    @Inject(ORCHESTRATOR_SETTINGS) private readonly settings: OrchestratorSettings,
    @Inject(CHAT_PORT) chat: ChatPort,
    @Inject(MEMORY_PORT) memory: MemoryPort,
    private readonly runs: OrchestrationLog,
    @Inject(SKILLS_PORT) skills: TurnSkills | null,
  ) {
    this.orchestrator = new Orchestrator(settings, chat, memory, { skills: skills ?? undefined });
  }

  onModuleInit(): void {
    const coding = this.settings.agents.coding;
    if (!coding?.enabled) return;
    const problem = binaryProblem(coding.binary);
    if (problem) this.log.warn(`orchestrator.agents.coding.binary: ${problem}`);
  }

  /** Stops the CLIs, then lets the runs record themselves while the database is still open. */
  async onModuleDestroy(): Promise<void> {
    this.shutdown.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((r) => (timer = setTimeout(r, SHUTDOWN_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  /** `Subjects.router.orchestrate`. */
  async request(r: OrchestrateRequest): Promise<OrchestrateResult> {
    // Each request is its own: its skill calls get their own seed and side-effect ids.
    const o = await this.run({ ...r, seed: randomUUID() }, { trigger: 'request' });
    return o.result;
  }

  run(input: OrchestrateInput, source: OrchestrationSource): Promise<Orchestration> {
    return this.tracked(this.runAndRecord(input, source));
  }

  /** At most this many delegations of one orchestration run at once. */
  get parallelLimit(): number {
    return this.settings.parallelExecution ? this.settings.maxParallelAgents : 1;
  }

  /** The coding CLI's time limit, or the model agents' (what a task's deadline builds on). */
  timeoutOf(type: DelegateAgentType): number {
    const coding = this.settings.agents.coding;
    return type === 'coding' && coding ? coding.timeoutMs : MODEL_AGENT_TIMEOUT_MS;
  }

  /**
   * The orchestrator's choice alone (see {@link Orchestrator.plan}); the caller runs the
   * delegations ({@link delegate}) as it likes, then records the whole ({@link record}).
   */
  plan(input: OrchestrateInput): Promise<OrchestrationPlan> {
    return this.tracked(this.orchestrator.plan(this.stoppable(input)));
  }

  delegate(c: Delegation, input: OrchestrateInput, context?: string): Promise<AgentRun> {
    return this.tracked(this.orchestrator.delegate(c, this.stoppable(input), context));
  }

  finish(plan: Extract<OrchestrationPlan, { kind: 'delegate' }>, runs: AgentRun[]): Orchestration {
    return this.orchestrator.finish(plan, runs);
  }

  private stoppable(input: OrchestrateInput): OrchestrateInput {
    const signal = input.signal
      ? AbortSignal.any([input.signal, this.shutdown.signal])
      : this.shutdown.signal;
    return { ...input, signal };
  }

  /** Stopping the service waits for what is in flight to end (the CLIs are killed first). */
  private tracked<T>(work: Promise<T>): Promise<T> {
    const p = work as Promise<unknown>;
    this.inFlight.add(p);
    void p.catch(() => undefined).finally(() => this.inFlight.delete(p));
    return work;
  }

  private async runAndRecord(
    input: OrchestrateInput,
    source: OrchestrationSource,
  ): Promise<Orchestration> {
    const stoppable = this.stoppable(input);
    const o = await this.orchestrator.run(stoppable);
    await this.record(stoppable, source, o);
    return o;
  }

  /** Records an orchestration with every run; a failure to record is logged, not thrown. */
  async record(input: OrchestrateInput, source: OrchestrationSource, o: Orchestration) {
    try {
      const { id, ...from } = source;
      await this.runs.record({
        id: id ?? randomUUID(),
        guildId: input.guildId,
        channelId: input.channelId,
        ...from,
        text: input.text,
        decision: o.decision,
        runs: o.runs,
        toolCalls: o.toolCalls,
        wallMs: o.wallMs,
        payloads: o.result.payloads,
        cancelled: input.signal?.aborted ?? false,
        at: new Date(),
      });
    } catch (e) {
      // The answer matters more than its log line.
      this.log.error(`could not record an orchestration: ${(e as Error).message}`);
    }
  }
}
