import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import {
  EnvelopeTypes,
  Subjects,
  type MessageCreated,
  type RouterTasksCancelResult,
} from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import {
  aggregateResults,
  mapLimit,
  splitForDiscord,
  type DelegateAgentType,
  type OrchestrateInput,
  type Orchestration,
  type OrchestrationPlan,
} from '@dirigent/orchestrator';
import { withoutMention, type AgentPersona } from '@dirigent/router-domain';
import { Orchestrate } from './orchestrate';
import { Tasks } from './tasks';

/** Discord shows "typing" for about 10 s; renewed a little sooner. */
const TYPING_EVERY_MS = 8000;
/** Deleted messages remembered before their run starts (a redelivered message, a slow consumer). */
const REMEMBERED_CANCELS = 1000;

export type OrchestratorAgent = Pick<AgentPersona, 'id' | 'name' | 'discordUserId'>;

/**
 * The orchestrator in Discord, for a message that mentions a built-in agent with
 * `orchestrator: true`: typing while it works, a direct answer, or a "working on it"
 * notice and each delegation as a task ({@link Tasks}) whose answer is posted as the agent
 * when it ends (split at 2,000 characters). Deleting the asking message cancels the run:
 * the coding CLI is killed and no answer is sent.
 */
@Injectable()
export class OrchestrateInDiscord {
  private readonly log = new Logger('orchestrate-in-discord');
  /** Runs under way, by the asking message. */
  private readonly running = new Map<
    string,
    { abort: AbortController; channelId: string; agentId: string }
  >();
  private readonly cancelled = new Set<string>();

  constructor(
    private readonly orchestrate: Orchestrate,
    private readonly tasks: Tasks,
    private readonly messaging: Messaging,
  ) {}

  /** Whether a task was started for the message, here or before a restart. */
  started(messageId: string): Promise<boolean> {
    return this.tasks.startedFor(messageId);
  }

  /** Whether a run for this message is under way. */
  isRunning(messageId: string): boolean {
    return this.running.has(messageId);
  }

  /** The asker deleted `messageId`: stop its run and drop its answer. */
  cancel(messageId: string): boolean {
    const run = this.running.get(messageId);
    if (run) {
      run.abort.abort();
      return true;
    }
    this.cancelled.add(messageId);
    if (this.cancelled.size > REMEMBERED_CANCELS) {
      this.cancelled.delete(this.cancelled.values().next().value as string);
    }
    return false;
  }

  /**
   * `/dirigent cancel`: stops every run under way in the channel (its coding CLIs are
   * killed, its tasks end `cancelled`, nothing is answered) and says what was stopped.
   */
  cancelChannel(channelId: string): RouterTasksCancelResult['cancelled'] {
    const out: RouterTasksCancelResult['cancelled'] = [];
    for (const [messageId, run] of this.running) {
      if (run.channelId !== channelId || run.abort.signal.aborted) continue;
      out.push({ messageId, agentId: run.agentId, tasks: this.tasks.runningFor(messageId) });
      run.abort.abort();
    }
    return out;
  }

  /**
   * The orchestrator's choice, then each delegation as a task (off the channel's lane: the
   * caller does not hold it), whose result is posted as soon as it ends. Resolves when all
   * of them have ended and the orchestration is recorded.
   */
  async run(agent: OrchestratorAgent, message: MessageCreated): Promise<void> {
    const id = message.messageId;
    if (this.running.has(id) || this.cancelled.delete(id)) return;
    const abort = new AbortController();
    this.running.set(id, { abort, channelId: message.channelId, agentId: agent.id });
    let ticks = 0;
    const typing = () => void this.typing(message, `${id}-${ticks++}`);
    typing();
    const timer = setInterval(typing, TYPING_EVERY_MS);
    try {
      const input: OrchestrateInput = {
        guildId: message.guildId,
        channelId: message.channelId,
        sessionId: message.channelId,
        text: withoutMention(message.content, agent) || message.content,
        agentId: agent.id,
        // A redelivered message repeats its skill calls' ids (their posts are deduplicated).
        seed: id,
        signal: abort.signal,
      };
      const source = {
        id: randomUUID(),
        trigger: 'discord' as const,
        agentId: agent.id,
        inboundMessageId: id,
      };
      const plan = await this.orchestrate.plan(input);
      const o =
        plan.kind === 'direct'
          ? plan.orchestration
          : await this.delegateAll(agent, message, plan, input, source.id);
      await this.orchestrate.record(input, source, o);
      if (abort.signal.aborted) {
        this.log.log(`message ${id} was deleted: the answer is dropped`);
      } else if (plan.kind === 'direct') {
        await this.answer(agent, message, o.result.payloads, 'reply');
      }
    } finally {
      clearInterval(timer);
      this.running.delete(id);
    }
  }

  private async delegateAll(
    agent: OrchestratorAgent,
    m: MessageCreated,
    plan: Extract<OrchestrationPlan, { kind: 'delegate' }>,
    input: OrchestrateInput,
    decisionId: string,
  ): Promise<Orchestration> {
    void this.notice(
      agent,
      m,
      plan.calls.flatMap((c) => (c.type ? [c.type] : [])),
    );
    const several = plan.calls.length > 1;
    const runs = await mapLimit(plan.calls, this.orchestrate.parallelLimit, async (c, i) => {
      const type = c.type ?? 'general';
      const spec = {
        guildId: m.guildId,
        channelId: m.channelId,
        agentId: agent.id,
        agentType: type,
        inboundMessageId: m.messageId,
        decisionId,
        timeoutMs: this.orchestrate.timeoutOf(type),
      };
      const run = await this.tasks.run(spec, input.signal!, (signal) =>
        this.orchestrate.delegate(c, { ...input, signal }, plan.context),
      );
      if (!input.signal!.aborted) {
        const [payload] = aggregateResults([run], plan.model).payloads;
        const text =
          several && !payload.isError ? `**${run.agentName}:**\n${payload.text}` : payload.text;
        await this.answer(agent, m, [{ text }], `task-${i}`);
      }
      return run;
    });
    return this.orchestrate.finish(plan, runs);
  }

  /** Posts payloads as the agent, split at 2,000 characters. */
  private async answer(
    agent: OrchestratorAgent,
    m: MessageCreated,
    payloads: { text: string }[],
    part: string,
  ): Promise<void> {
    const parts = payloads.flatMap((p) => splitForDiscord(p.text));
    for (const [i, content] of parts.entries()) {
      const suffix = part === 'reply' ? `reply-${i}` : `${part}-reply-${i}`;
      await this.send(agent, m, content, `orch-${m.messageId}-${suffix}`, 'agent-reply');
    }
  }

  private async notice(agent: OrchestratorAgent, m: MessageCreated, types: DelegateAgentType[]) {
    const who = [...new Set(types)].join(', ') || 'the agents';
    await this.send(agent, m, `Working on it (${who})…`, `orch-${m.messageId}-notice`, 'notice');
  }

  private async typing(m: MessageCreated, id: string): Promise<void> {
    try {
      await this.messaging.publishEvent(
        Subjects.discord.cmdTyping,
        EnvelopeTypes.typing,
        { guildId: m.guildId, channelId: m.channelId },
        { id: `orch-typing-${id}` },
      );
    } catch (e) {
      this.log.warn(`typing for ${m.messageId}: ${(e as Error).message}`);
    }
  }

  private async send(
    agent: OrchestratorAgent,
    m: MessageCreated,
    content: string,
    id: string,
    purpose: 'agent-reply' | 'notice',
  ): Promise<void> {
    // The id makes a redelivered message's answer a duplicate JetStream drops.
    await this.messaging.publishEvent(
      Subjects.discord.cmdSendMessage,
      EnvelopeTypes.sendMessage,
      {
        guildId: m.guildId,
        channelId: m.channelId,
        content,
        purpose,
        asAgentId: agent.id,
        replyToMessageId: m.messageId,
      },
      { id },
    );
  }
}

/** Kept where it was first exported; the parser is router-domain's, next to `isMentioned`. */
export { withoutMention };
