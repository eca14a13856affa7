import { Logger } from '@nestjs/common';
import { Subjects, type LlmBudgetView, type LlmChatRequest } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import { ModelGateway, type ModelAnswer } from '../application/ports';

interface ChatReply {
  completion: { choices: { message: { content: string | null } }[] };
  model: string;
  costUsd?: number;
}

const BUDGET_TTL_MS = 10_000;

/** `Subjects.llm.chat` by purpose and `Subjects.llm.budgetGet` (cached a few seconds). */
export class NatsModelGateway extends ModelGateway {
  private readonly log = new Logger('router:gateway');
  private readonly budgets = new Map<string, { at: number; fraction: number | undefined }>();
  private warned = false;

  constructor(
    private readonly messaging: Messaging,
    private readonly queryTimeoutMs: number,
  ) {
    super();
  }

  async chat(
    guildId: string,
    purpose: string,
    messages: { role: 'system' | 'user' | 'assistant'; content: string }[],
    timeoutMs: number,
    maxTokens = 600,
  ): Promise<ModelAnswer> {
    const body: LlmChatRequest = { guildId, purpose, request: { messages, max_tokens: maxTokens } };
    const reply = await this.messaging.request<ChatReply>(Subjects.llm.chat, body, timeoutMs);
    if (!reply.ok) throw new Error(`${purpose}: ${reply.error.code} ${reply.error.message}`);
    return {
      text: reply.data.completion.choices[0]?.message.content ?? '',
      model: reply.data.model,
      costUsd: reply.data.costUsd ?? 0,
    };
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
