import { Injectable, Logger } from '@nestjs/common';
import { EnvelopeTypes, Subjects, type MessageCreated } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { splitForDiscord, type DelegateAgentType } from '@dirigent/orchestrator';
import type { AgentPersona } from '@dirigent/router-domain';
import { Orchestrate } from './orchestrate';

/** Discord shows "typing" for about 10 s; renewed a little sooner. */
const TYPING_EVERY_MS = 8000;
/** Deleted messages remembered before their run starts (a redelivered message, a slow consumer). */
const REMEMBERED_CANCELS = 1000;

export type OrchestratorAgent = Pick<AgentPersona, 'id' | 'name' | 'discordUserId'>;

/**
 * The orchestrator in Discord, for a message that mentions a built-in agent with
 * `orchestrator: true`: typing while it works, a "working on it" notice once it
 * delegates, the answer as the agent (split at 2,000 characters). Deleting the asking
 * message cancels the run: the coding CLI is killed and no answer is sent.
 */
@Injectable()
export class OrchestrateInDiscord {
  private readonly log = new Logger('orchestrate-in-discord');
  private readonly running = new Map<string, AbortController>();
  private readonly cancelled = new Set<string>();

  constructor(
    private readonly orchestrate: Orchestrate,
    private readonly messaging: Messaging,
  ) {}

  /** Whether a run for this message is under way. */
  isRunning(messageId: string): boolean {
    return this.running.has(messageId);
  }

  /** The asker deleted `messageId`: stop its run and drop its answer. */
  cancel(messageId: string): boolean {
    const run = this.running.get(messageId);
    if (run) {
      run.abort();
      return true;
    }
    this.cancelled.add(messageId);
    if (this.cancelled.size > REMEMBERED_CANCELS) {
      this.cancelled.delete(this.cancelled.values().next().value as string);
    }
    return false;
  }

  async run(agent: OrchestratorAgent, message: MessageCreated): Promise<void> {
    const id = message.messageId;
    if (this.running.has(id) || this.cancelled.delete(id)) return;
    const abort = new AbortController();
    this.running.set(id, abort);
    let ticks = 0;
    const typing = () => void this.typing(message, `${id}-${ticks++}`);
    typing();
    const timer = setInterval(typing, TYPING_EVERY_MS);
    try {
      const o = await this.orchestrate.run(
        {
          guildId: message.guildId,
          channelId: message.channelId,
          sessionId: message.channelId,
          text: withoutMention(message.content, agent) || message.content,
          signal: abort.signal,
          onDelegate: (types) => void this.notice(agent, message, types),
        },
        { trigger: 'discord', agentId: agent.id, inboundMessageId: id },
      );
      if (abort.signal.aborted) {
        this.log.log(`message ${id} was deleted: the answer is dropped`);
        return;
      }
      const parts = o.result.payloads.flatMap((p) => splitForDiscord(p.text));
      for (const [i, content] of parts.entries()) {
        await this.send(agent, message, content, `orch-${id}-reply-${i}`, 'agent-reply');
      }
    } finally {
      clearInterval(timer);
      this.running.delete(id);
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

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The message without the agent's mention (`<@id>`, `@Name`), which is not part of the task. */
export function withoutMention(content: string, agent: OrchestratorAgent): string {
  let text = content;
  if (agent.discordUserId) text = text.split(`<@${agent.discordUserId}>`).join(' ');
  if (agent.discordUserId) text = text.split(`<@!${agent.discordUserId}>`).join(' ');
  for (const n of [agent.name, agent.id].filter((x) => x && x.trim().length >= 2)) {
    text = text.replace(new RegExp(`(^|\\s)@${escape(n)}(?![\\p{L}\\p{N}_])[,:]?`, 'giu'), '$1');
  }
  return text.replace(/\s+/g, ' ').trim();
}
