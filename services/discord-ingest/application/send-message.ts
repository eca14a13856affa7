import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Client, Message } from 'discord.js';
import type { SendMessageCommand } from '@dirigent/contracts';
import { AgentWebhooks } from '../adapters/agent-webhooks';
import { DiscordRest } from '../adapters/discord-rest';
import { splitContent } from '../domain/split-content';

/** Discord's `nonce` (max 25 chars): the same command part always gets the same nonce. */
export function nonceFor(envelopeId: string, part: number): string {
  return createHash('sha256').update(`${envelopeId}#${part}`).digest('base64url').slice(0, 25);
}

/**
 * Sends a message in parts of at most 2,000 characters, as the bot (with a nonce Discord
 * enforces, so a redelivered part is not posted twice) or as an agent through its webhook.
 */
@Injectable()
export class SendMessage {
  constructor(
    private readonly rest: DiscordRest,
    private readonly webhooks: AgentWebhooks,
  ) {}

  async run(client: Client<true>, cmd: SendMessageCommand, envelopeId: string): Promise<void> {
    const channel = await this.rest.textChannel(client, cmd.guildId, cmd.channelId);
    const parts = splitContent(cmd.content);
    const hook = cmd.asAgentId
      ? await this.webhooks.forAgent(client, channel, cmd.asAgentId)
      : null;
    for (const [i, content] of parts.entries()) {
      const reply = i === 0 && cmd.replyToMessageId;
      const sent: Message = await this.rest.call('send', () =>
        hook
          ? this.webhooks.send(hook, content)
          : channel.send({
              content,
              nonce: nonceFor(envelopeId, i),
              enforceNonce: true,
              allowedMentions: { parse: ['users'], roles: cmd.mentionRoleIds ?? [] },
              ...(reply
                ? { reply: { messageReference: cmd.replyToMessageId!, failIfNotExists: false } }
                : {}),
            }),
      );
      if (cmd.deleteAfterSend) {
        await this.rest.call('delete', () => channel.messages.delete(sent.id));
      }
    }
  }
}
