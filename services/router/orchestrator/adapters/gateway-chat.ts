import { Injectable } from '@nestjs/common';
import { Subjects, type LlmChatRequest } from '@dirigent/contracts';
import { Messaging } from '@dirigent/messaging';
import type { ChatAnswer, ChatCall, ChatPort, ToolCall } from '@dirigent/orchestrator';

interface ChatReply {
  completion: {
    choices?: { message?: { content?: string | null; tool_calls?: ToolCall[] } }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  model: string;
  costUsd?: number;
}

/** The model gateway over NATS (`Subjects.llm.chat`), routed by purpose. */
@Injectable()
export class GatewayChat implements ChatPort {
  constructor(private readonly messaging: Messaging) {}

  async chat(call: ChatCall): Promise<ChatAnswer> {
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
}
