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
  type OrchestrateInput,
  type Orchestration,
  type OrchestratorSettings,
} from '@dirigent/orchestrator';
import { GatewayChat } from '../adapters/gateway-chat';
import { NatsMemory } from '../adapters/nats-memory';
import { OrchestrationLog, type OrchestrationRecord } from './ports';
import { ORCHESTRATOR_SETTINGS } from './tokens';

/** How long a stop waits for runs that were just cancelled to finish and be recorded. */
const SHUTDOWN_WAIT_MS = 5000;

export interface OrchestrationSource {
  trigger: OrchestrationRecord['trigger'];
  agentId?: string;
  inboundMessageId?: string;
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
  private readonly inFlight = new Set<Promise<Orchestration>>();

  constructor(
    @Inject(ORCHESTRATOR_SETTINGS) private readonly settings: OrchestratorSettings,
    chat: GatewayChat,
    memory: NatsMemory,
    private readonly runs: OrchestrationLog,
  ) {
    this.orchestrator = new Orchestrator(settings, chat, memory);
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
    const o = await this.run(r, { trigger: 'request' });
    return o.result;
  }

  run(input: OrchestrateInput, source: OrchestrationSource): Promise<Orchestration> {
    const running = this.runAndRecord(input, source);
    this.inFlight.add(running);
    void running.catch(() => undefined).finally(() => this.inFlight.delete(running));
    return running;
  }

  private async runAndRecord(
    input: OrchestrateInput,
    source: OrchestrationSource,
  ): Promise<Orchestration> {
    const signal = input.signal
      ? AbortSignal.any([input.signal, this.shutdown.signal])
      : this.shutdown.signal;
    const o = await this.orchestrator.run({ ...input, signal });
    await this.record({ ...input, signal }, source, o);
    return o;
  }

  private async record(input: OrchestrateInput, source: OrchestrationSource, o: Orchestration) {
    try {
      await this.runs.record({
        id: randomUUID(),
        guildId: input.guildId,
        channelId: input.channelId,
        ...source,
        text: input.text,
        decision: o.decision,
        runs: o.runs,
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
