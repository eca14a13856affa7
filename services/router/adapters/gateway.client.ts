import { Logger } from '@nestjs/common';
import { Subjects, type LlmBudgetView, type LlmChatRequest } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import type { ChatAnswer, ChatCall, ChatPort, ToolCall } from '@dirigent/orchestrator';
import { ModelGateway, type ModelAnswer } from '../application/clients';

interface ChatReply {
  completion: {
    choices?: { message?: { content?: string | null; tool_calls?: ToolCall[] } }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  model: string;
  costUsd?: number;
}

const BUDGET_TTL_MS = 10_000;

/**
 * The model gateway over NATS, for the router and the orchestrator alike: `Subjects.llm.chat`
 * by purpose (the OpenAI body as given, tools included) and `Subjects.llm.budgetGet`
 * (cached a few seconds). The orchestrator sees it as its `ChatPort` ({@link chatPort}).
 */
export class NatsModelGateway extends ModelGateway {
  private readonly log = new Logger('router:gateway');
  private readonly budgets = new Map<string, { at: number; fraction: number | undefined }>();
  private warned = false;
  /** The same client as `@dirigent/orchestrator`'s port. */
  readonly chatPort: ChatPort = { chat: (call) => this.complete(call) };

  constructor(
    private readonly messaging: Messaging,
    private readonly queryTimeoutMs: number,
  ) {
    super();
  }

  /** One chat completion; throws `model gateway: <code>: <message>` when it fails. */
  async complete(call: Omit<ChatCall, 'purpose'> & { purpose: string }): Promise<ChatAnswer> {
    const req: LlmChatRequest = {
      purpose: call.purpose,
      guildId: call.guildId,
      request: call.body,
    };
    const reply = await this.messaging.request<ChatReply>(Subjects.llm.chat, req, call.timeoutMs);
    if (!reply.ok) throw new Error(`model gateway: ${reply.error.code}: ${reply.error.message}`);
    const { completion, model, costUsd } = reply.data;
    const message = completion.choices?.[0]?.message ?? {};
    const usage = completion.usage;
    return {
      content: message.content ?? '',
      toolCalls: (message.tool_calls ?? []).filter((c) => c?.function?.name),
      model,
      ...(usage
        ? { tokenUsage: { input: usage.prompt_tokens ?? 0, output: usage.completion_tokens ?? 0 } }
        : {}),
      ...(typeof costUsd === 'number' ? { costUsd } : {}),
    };
  }

  async chat(
    guildId: string,
    purpose: string,
    messages: { role: 'system' | 'user' | 'assistant'; content: string }[],
    timeoutMs: number,
    maxTokens = 600,
  ): Promise<ModelAnswer> {
    const a = await this.complete({
      guildId,
      purpose,
      timeoutMs,
      body: { messages, max_tokens: maxTokens },
    });
    return { text: a.content, model: a.model, costUsd: a.costUsd ?? 0 };
  }

  async budgetFraction(guildId: string): Promise<number | undefined> {
    const cached = this.budgets.get(guildId);
    if (cached && Date.now() - cached.at < BUDGET_TTL_MS) return cached.fraction;
    const reply = await this.messaging.request<LlmBudgetView>(
      Subjects.llm.budgetGet,
      { guildId },
      this.queryTimeoutMs,
    );
    let fraction: number | undefined;
    if (reply.ok) {
      const { usdPerDay, remainingUsd } = reply.data;
      fraction =
        usdPerDay === null || remainingUsd === null
          ? 1
          : usdPerDay > 0
            ? Math.max(0, Math.min(1, remainingUsd / usdPerDay))
            : 0;
    } else if (!this.warned) {
      this.warned = true;
      this.log.warn(`budget unknown (${reply.error.code}): no budget pressure applied`);
    }
    this.budgets.set(guildId, { at: Date.now(), fraction });
    return fraction;
  }
}
