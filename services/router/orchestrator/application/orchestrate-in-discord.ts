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
import { withoutMention, type AgentPersona, type GatedReply } from '@dirigent/router-domain';
import { Orchestrate } from './orchestrate';
import { Tasks } from './tasks';

/** Discord shows "typing" for about 10 s; renewed a little sooner. */
const TYPING_EVERY_MS = 8000;
/** Deleted messages remembered before their run starts (a redelivered message, a slow consumer). */
const REMEMBERED_CANCELS = 1000;

export type OrchestratorAgent = Pick<AgentPersona, 'id' | 'name' | 'discordUserId'>;

/**
 * What the host asks of the agent's answers (read once per run): its persona's output gates
 * (banned phrases, never-do) and the version the decision records, and the channel's run of
 * bot messages: `claim` takes a place for a message about to be sent (false: the run is at
 * its bound), `heldBack` says the rest of the answer was not sent.
 */
export interface AnswerPolicy {
  version?: number;
  gate(text: string): GatedReply;
  claim(content: string): boolean;
  heldBack(decisionId: string, sent: number, withheld: number): Promise<void>;
}

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
  async run(
    agent: OrchestratorAgent,
    message: MessageCreated,
    policy?: AnswerPolicy,
  ): Promise<void> {
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
        userId: message.authorId,
        // A redelivered message repeats its skill calls' ids (their posts are deduplicated).
        seed: id,
        signal: abort.signal,
      };
      const source = {
        id: randomUUID(),
        trigger: 'discord' as const,
        agentId: agent.id,
        inboundMessageId: id,
        ...(policy?.version !== undefined ? { personaVersion: policy.version } : {}),
      };
      const plan = await this.orchestrate.plan(input);
      const to = { agent, m: message, decisionId: source.id, policy };
      const answered: string[] = [];
      const o =
        plan.kind === 'direct'
          ? plan.orchestration
          : await this.delegateAll(to, plan, input, answered);
      if (abort.signal.aborted) {
        this.log.log(`message ${id} was deleted: the answer is dropped`);
      } else if (plan.kind === 'direct') {
        const payloads = this.gated(agent, o.result.payloads, policy);
        answered.push(...(await this.answer(to, payloads, 'reply')));
      }
      // The record keeps what was answered (through the persona's gates and the bots' run).
      const payloads = answered.map((text) => ({ text }));
      await this.orchestrate.record(input, source, { ...o, result: { ...o.result, payloads } });
    } finally {
      clearInterval(timer);
      this.running.delete(id);
    }
  }

  private async delegateAll(
    to: Answering,
    plan: Extract<OrchestrationPlan, { kind: 'delegate' }>,
    input: OrchestrateInput,
    answered: string[],
  ): Promise<Orchestration> {
    const { agent, m } = to;
    void this.notice(
      to,
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
        decisionId: to.decisionId,
        timeoutMs: this.orchestrate.timeoutOf(type),
      };
      const run = await this.tasks.run(spec, input.signal!, (signal) =>
        this.orchestrate.delegate(c, { ...input, signal }, plan.context),
      );
      if (!input.signal!.aborted) {
        const [payload] = aggregateResults([run], plan.model).payloads;
        const text =
          several && !payload.isError ? `**${run.agentName}:**\n${payload.text}` : payload.text;
        const payloads = this.gated(agent, [{ text }], to.policy);
        answered.push(...(await this.answer(to, payloads, `task-${i}`)));
      }
      return run;
    });
    return this.orchestrate.finish(plan, runs);
  }

  /** Payloads through the persona's output gates: cut, or left out with a warning. */
  private gated<P extends { text: string }>(
    agent: OrchestratorAgent,
    payloads: P[],
    policy?: AnswerPolicy,
  ): P[] {
    if (!policy) return payloads;
    return payloads.flatMap((p) => {
      const g = policy.gate(p.text);
      if ('text' in g) return [{ ...p, text: g.text }];
      this.log.warn(
        { agentId: agent.id, reason: g.suppressed, neverDo: g.rule },
        'answer suppressed by the persona',
      );
      return [];
    });
  }

  /**
   * Posts payloads as the agent, split at 2,000 characters, each in a place of the
   * channel's bot run; the rest is held back once the run is at its bound. Returns what
   * was posted.
   */
  private async answer(to: Answering, payloads: { text: string }[], part: string) {
    const parts = payloads.flatMap((p) => splitForDiscord(p.text));
    const sent: string[] = [];
    for (const [i, content] of parts.entries()) {
      if (to.policy && !to.policy.claim(content)) {
        await to.policy.heldBack(to.decisionId, sent.length, parts.length - i);
        break;
      }
      const suffix = part === 'reply' ? `reply-${i}` : `${part}-reply-${i}`;
      await this.send(to, content, `orch-${to.m.messageId}-${suffix}`, 'agent-reply');
      sent.push(content);
    }
    return sent;
  }

  /** "Working on it": left out when the channel's bot run has no place for it. */
  private async notice(to: Answering, types: DelegateAgentType[]) {
    const who = [...new Set(types)].join(', ') || 'the agents';
    const content = `Working on it (${who})…`;
    if (to.policy && !to.policy.claim(content)) return;
    await this.send(to, content, `orch-${to.m.messageId}-notice`, 'notice');
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
    { agent, m }: Answering,
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

/** Who answers which message, under which decision and policy. */
interface Answering {
  agent: OrchestratorAgent;
  m: MessageCreated;
  decisionId: string;
  policy?: AnswerPolicy;
}

/** Kept where it was first exported; the parser is router-domain's, next to `isMentioned`. */
export { withoutMention };
