import { Injectable } from '@nestjs/common';
import {
  DiscordAPIError,
  type Client,
  type GuildTextBasedChannel,
  type Message,
  type Webhook,
} from 'discord.js';
import { Subjects, type AgentNamesResult } from '@dirigent/contracts';
import { Messaging, PermanentError } from '@dirigent/messaging';
import { DiscordCodes } from '../domain/errors';
import { DiscordRest } from './discord-rest';

export interface AgentHook {
  webhook: Webhook;
  name: string;
  key: string;
  avatarUrl?: string;
}

const IDENTITY_TTL_MS = 60_000;

/** The channel webhooks that speak as agents, under the names the identity registry gives. */
@Injectable()
export class AgentWebhooks {
  private readonly webhooks = new Map<string, Webhook>();
  private identities: { at: number; entries: AgentNamesResult['names'] } | null = null;

  constructor(
    private readonly messaging: Messaging,
    private readonly rest: DiscordRest,
  ) {}

  /** The agent's webhook in the channel: found by name or created, then reused. */
  async forAgent(
    client: Client<true>,
    channel: GuildTextBasedChannel,
    agentId: string,
  ): Promise<AgentHook> {
    const name = (await this.agentName(agentId)).slice(0, 80);
    const key = `${channel.id}:${agentId}`;
    const cached = this.webhooks.get(key);
    if (cached) return { webhook: cached, name, key };
    if (!('fetchWebhooks' in channel)) {
      throw new PermanentError(`channel ${channel.id} cannot have webhooks`);
    }
    const existing = await this.rest.call('send', () => channel.fetchWebhooks());
    let webhook = existing.find(
      (w) => w.name === name && w.owner?.id === client.user.id && w.token !== null,
    );
    if (!webhook) {
      webhook = await this.rest.call('send', () =>
        channel.createWebhook({ name, reason: `Dirigent agent ${agentId}` }),
      );
    }
    this.webhooks.set(key, webhook);
    return { webhook, name, key };
  }

  async send(hook: AgentHook, content: string): Promise<Message> {
    try {
      return await hook.webhook.send({
        content,
        username: hook.name,
        ...(hook.avatarUrl ? { avatarURL: hook.avatarUrl } : {}),
        allowedMentions: { parse: ['users'] },
      });
    } catch (e) {
      if (e instanceof DiscordAPIError && e.code === DiscordCodes.UnknownWebhook) {
        // Someone deleted it: forget it, and the retry creates a new one.
        this.webhooks.delete(hook.key);
        throw new Error(`webhook ${hook.webhook.id} is gone; will recreate`);
      }
      throw e;
    }
  }

  /** The agent's registered name from the coordinator's identity registry, else its id. */
  private async agentName(agentId: string): Promise<string> {
    if (!this.identities || Date.now() - this.identities.at > IDENTITY_TTL_MS) {
      const reply = await this.messaging.request<AgentNamesResult>(
        Subjects.turn.agentNames,
        {},
        1500,
      );
      if (reply.ok) this.identities = { at: Date.now(), entries: reply.data.names ?? [] };
    }
    const entry = this.identities?.entries.find((e) => e.agentId === agentId);
    return entry?.agentName || agentId;
  }
}
