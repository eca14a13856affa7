import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  EnvelopeTypes,
  RouterEventTypes,
  Subjects,
  subject,
  TaskDue,
  type DelegateAgentType,
  type RouterTaskEvent,
  type TaskStatus,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import type { AgentRun } from '@dirigent/orchestrator';
import { declareJob, Reactor, timer, type DeclaredJob } from '@dirigent/reactor';
import { TaskStore, type TaskRecord } from './ports';

/** The router's durable timers' owner (its timer consumer hands `…fired.router.*` to its reactor). */
const TIMER_OWNER = 'router';
export const TASK_DUE = timer({
  subject: subject.timerFired(TIMER_OWNER, 'task'),
  type: RouterEventTypes.taskDue,
});
/** Past its agent's own timeout a task is overdue after this much more. */
const DEADLINE_GRACE_MS = 60_000;
const SUMMARY_MAX = 500;

export interface TaskSpec {
  guildId: string;
  channelId: string;
  agentId: string;
  agentType: DelegateAgentType;
  inboundMessageId?: string;
  decisionId?: string;
  /** The agent's own time limit (the CLI is killed then). */
  timeoutMs: number;
}

/** What a finished run means for its task: cancelled by the asker, timed out, failed or done. */
function ending(run: AgentRun, cancelled: boolean): Exclude<TaskStatus, 'running'> {
  if (cancelled) return 'cancelled';
  if (run.status === 'timeout') return 'timeout';
  return run.status === 'error' ? 'failed' : 'done';
}

const summaryOf = (run: AgentRun) =>
  (run.status === 'error' ? run.errorMessage || run.output : run.output).slice(0, SUMMARY_MAX);

/**
 * Delegated orchestrator jobs as tasks: each is a `router_tasks` row owned by this process
 * (its lease: a Postgres advisory lock), announced on `subject.routerEvent(g, c, 'task')`
 * when it starts and when it ends, with a deadline on the reactor's durable timer. At
 * start, tasks whose owner died are reported `failed` in their channel.
 */
@Injectable()
export class Tasks implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('router:tasks');
  /** This process, as a task's owner. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly running = new Map<string, { record: TaskRecord; abort: AbortController }>();

  constructor(
    private readonly store: TaskStore,
    private readonly messaging: Messaging,
    @Optional() private readonly reactor?: Reactor,
  ) {}

  /** The reactor job `task-deadline` (registered from the service's `reactor-jobs.ts`). */
  jobs(): DeclaredJob[] {
    return [
      declareJob({
        name: 'task-deadline',
        trigger: TASK_DUE,
        parse: TaskDue.create,
        run: (due) => this.overdue(due.taskId),
      }),
    ];
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.store.holdLease(this.owner);
    for (const t of await this.store.running()) {
      if (t.owner !== this.owner && !(await this.store.alive(t.owner))) await this.died(t);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.releaseLease();
  }

  /** Whether a task was started for the asking message (by this process or one before it). */
  startedFor(inboundMessageId: string): Promise<boolean> {
    return this.store.startedFor(inboundMessageId);
  }

  /** The agent types of the tasks this process runs for an asking message. */
  runningFor(inboundMessageId: string): string[] {
    return [...this.running.values()]
      .filter((t) => t.record.inboundMessageId === inboundMessageId)
      .map((t) => t.record.agentType);
  }

  /**
   * Runs `work` as a task: recorded and announced `running`, then settled once with what
   * its run says (`cancel` aborted: `cancelled`). Never throws for the work's sake.
   */
  async run(
    spec: TaskSpec,
    cancel: AbortSignal,
    work: (signal: AbortSignal) => Promise<AgentRun>,
  ): Promise<AgentRun> {
    const record: TaskRecord = {
      taskId: randomUUID(),
      guildId: spec.guildId,
      channelId: spec.channelId,
      agentId: spec.agentId,
      agentType: spec.agentType,
      ...(spec.inboundMessageId ? { inboundMessageId: spec.inboundMessageId } : {}),
      ...(spec.decisionId ? { decisionId: spec.decisionId } : {}),
      status: 'running',
      owner: this.owner,
      startedAt: new Date(),
    };
    const abort = new AbortController();
    const signal = AbortSignal.any([cancel, abort.signal]);
    await this.store.create(record);
    this.running.set(record.taskId, { record, abort });
    try {
      await this.announce(record);
      await this.reactor?.arm(
        TASK_DUE,
        `task:${record.taskId}`,
        record.startedAt.getTime() + spec.timeoutMs + DEADLINE_GRACE_MS,
        { taskId: record.taskId },
        spec.decisionId,
      );
      const run = await work(signal);
      await this.settle(record, ending(run, cancel.aborted), summaryOf(run));
      return run;
    } finally {
      this.running.delete(record.taskId);
      await this.reactor?.disarm(`task:${record.taskId}`).catch(() => undefined);
    }
  }

  /** The deadline came and the task is still running: its work hung, or its process died. */
  private async overdue(taskId: string): Promise<void> {
    const t = await this.store.get(taskId);
    if (!t || t.status !== 'running') return;
    const mine = this.running.get(taskId);
    if (mine) {
      mine.abort.abort();
      await this.settle(t, 'timeout', 'stopped at its deadline');
    } else if (t.owner === this.owner || !(await this.store.alive(t.owner))) {
      await this.died(t);
    }
  }

  private async died(t: TaskRecord): Promise<void> {
    if (!(await this.settle(t, 'failed', 'the router restarted while it ran'))) return;
    this.log.warn({ taskId: t.taskId, channelId: t.channelId }, 'task died with its process');
    await this.messaging.publishEvent(
      Subjects.discord.cmdSendMessage,
      EnvelopeTypes.sendMessage,
      {
        guildId: t.guildId,
        channelId: t.channelId,
        content: `My ${t.agentType} task did not finish: I was restarted while it ran. Ask again to retry.`,
        purpose: 'notice',
        asAgentId: t.agentId,
        ...(t.inboundMessageId ? { replyToMessageId: t.inboundMessageId } : {}),
      },
      { id: `task-${t.taskId}-failed` },
    );
  }

  private async settle(
    t: TaskRecord,
    status: Exclude<TaskStatus, 'running'>,
    summary: string,
  ): Promise<boolean> {
    const endedAt = new Date();
    if (!(await this.store.settle(t.taskId, status, summary, endedAt))) return false;
    await this.announce({ ...t, status, summary, endedAt });
    return true;
  }

  private async announce(t: TaskRecord): Promise<void> {
    const event: RouterTaskEvent = {
      taskId: t.taskId,
      ...(t.decisionId ? { decisionId: t.decisionId } : {}),
      agentType: t.agentType,
      status: t.status,
      startedAt: t.startedAt.toISOString(),
      ...(t.endedAt ? { endedAt: t.endedAt.toISOString() } : {}),
      ...(t.summary !== undefined ? { summary: t.summary } : {}),
    };
    await this.messaging.publishEvent(
      subject.routerEvent(t.guildId, t.channelId, 'task'),
      RouterEventTypes.task,
      event,
      { id: `task:${t.taskId}:${t.status}` },
    );
  }
}
