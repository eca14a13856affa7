import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  DiscordAPIError,
  HTTPError,
  type Client,
  type GuildTextBasedChannel,
  type Message,
  type Webhook,
} from 'discord.js';
import type { JsMsg } from '@nats-io/jetstream';
import {
  DeleteMessageCommand,
  Durables,
  SendMessageCommand,
  Streams,
  Subjects,
  type Envelope,
  type IdentityEntry,
} from '@dirigent/contracts';
import { Messaging, PermanentError, type RunningConsumer } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DiscordIngestConfig } from './config';
import { classifyFailure, DiscordCodes, type DiscordFailure } from './domain/errors';
import { splitContent } from './domain/split-content';
import { restCalls } from './metrics';

function failureOf(e: unknown): DiscordFailure {
  if (e instanceof DiscordAPIError) return { status: e.status, code: Number(e.code) };
  if (e instanceof HTTPError) return { status: e.status };
  return {};
}

/** Discord's `nonce` (max 25 chars): the same command part always gets the same nonce. */
export function nonceFor(envelopeId: string, part: number): string {
  return createHash('sha256').update(`${envelopeId}#${part}`).digest('base64url').slice(0, 25);
}

interface AgentHook {
  webhook: Webhook;
  name: string;
  key: string;
  avatarUrl?: string;
}

const IDENTITY_TTL_MS = 60_000;

/**
 * Commands out: a durable work-queue consumer that sends and deletes messages. Transient
 * failures (5xx, network) are retried with the consumer's backoff; 429s wait inside
 * discord.js's REST queue; permanent 4xx are dead-lettered at once.
 */
@Injectable()
export class CommandExecutor {
  private readonly log = new Logger('command-executor');
  private consumer: RunningConsumer | null = null;
  private readonly webhooks = new Map<string, Webhook>();
  private identities: { at: number; entries: IdentityEntry[] } | null = null;

  constructor(
    private readonly messaging: Messaging,
    @Inject(SERVICE_CONFIG) private readonly config: DiscordIngestConfig,
  ) {}

  async start(client: Client<true>): Promise<void> {
    this.consumer = await this.messaging.consume<Record<string, unknown>>({
      stream: Streams.discordCommands,
      durable: Durables.ingestCommands,
      filterSubject: Subjects.discord.cmdAll,
      maxDeliver: this.config.DISCORD_COMMAND_MAX_DELIVER,
      // Long enough for a 429 wait inside discord.js before JetStream redelivers.
      ackWaitMs: 60_000,
      backoffMs: [500, 2000, 5000, 15000, 30000],
      handler: (data, env, msg) => this.execute(client, data, env, msg),
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = null;
  }

  private async execute(
    client: Client<true>,
    data: unknown,
    env: Envelope<unknown>,
    msg: JsMsg,
  ): Promise<void> {
    switch (msg.subject) {
      case Subjects.discord.cmdSendMessage:
        return this.send(client, SendMessageCommand.create(data), env.id);
      case Subjects.discord.cmdDeleteMessage:
        return this.delete(client, DeleteMessageCommand.create(data));
      default:
        throw new PermanentError(`no command handler for ${msg.subject}`);
    }
  }

  private async channel(
    client: Client<true>,
    guildId: string,
    channelId: string,
  ): Promise<GuildTextBasedChannel> {
    const channel =
      client.channels.cache.get(channelId) ??
      (await this.discordCall('send', () => client.channels.fetch(channelId)));
    if (!channel || !channel.isTextBased() || channel.isDMBased()) {
      throw new PermanentError(`channel ${channelId} is not a guild text channel`);
    }
    if (channel.guildId !== guildId) {
      throw new PermanentError(`channel ${channelId} is not in guild ${guildId}`);
    }
    return channel;
  }

  private async send(client: Client<true>, cmd: SendMessageCommand, envelopeId: string) {
    const channel = await this.channel(client, cmd.guildId, cmd.channelId);
    const parts = splitContent(cmd.content);
    const hook = cmd.asAgentId ? await this.agentWebhook(client, channel, cmd.asAgentId) : null;
    for (const [i, content] of parts.entries()) {
      const reply = i === 0 && cmd.replyToMessageId;
      const sent: Message = await this.discordCall('send', () =>
        hook
          ? this.sendAsAgent(hook, content)
          : channel.send({
              content,
              nonce: nonceFor(envelopeId, i),
              enforceNonce: true,
              allowedMentions: { parse: ['users'] },
              ...(reply
                ? { reply: { messageReference: cmd.replyToMessageId!, failIfNotExists: false } }
                : {}),
            }),
      );
      if (cmd.deleteAfterSend) {
        await this.discordCall('delete', () => channel.messages.delete(sent.id));
      }
    }
  }

  private async sendAsAgent(hook: AgentHook, content: string): Promise<Message> {
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

  private async delete(client: Client<true>, cmd: DeleteMessageCommand) {
    const channel = await this.channel(client, cmd.guildId, cmd.channelId);
    await this.discordCall('delete', () => channel.messages.delete(cmd.messageId));
  }

  /** Runs a Discord call, turning its failure into retry (rethrow) or dead letter. */
  private async discordCall<T>(op: 'send' | 'delete', fn: () => Promise<T>): Promise<T> {
    try {
      const result = await fn();
      restCalls.inc({ op, outcome: 'ok' });
      return result;
    } catch (e) {
      const failure = failureOf(e);
      const verdict = classifyFailure(failure, op);
      restCalls.inc({ op, outcome: verdict });
      if (verdict === 'already-done') return undefined as T;
      const text = `${(e as Error).message} (status ${failure.status ?? 'none'}, code ${failure.code ?? 'none'})`;
      if (verdict === 'permanent') throw new PermanentError(text);
      throw new Error(text);
    }
  }

  /** The channel webhook that speaks as an agent: found by name or created, then reused. */
  private async agentWebhook(
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
    const existing = await this.discordCall('send', () => channel.fetchWebhooks());
    let webhook = existing.find(
      (w) => w.name === name && w.owner?.id === client.user.id && w.token !== null,
    );
    if (!webhook) {
      webhook = await this.discordCall('send', () =>
        channel.createWebhook({ name, reason: `Dirigent agent ${agentId}` }),
      );
    }
    this.webhooks.set(key, webhook);
    return { webhook, name, key };
  }

  /** The agent's registered name from the coordinator's identity registry, else its id. */
  private async agentName(agentId: string): Promise<string> {
    if (!this.identities || Date.now() - this.identities.at > IDENTITY_TTL_MS) {
      const reply = await this.messaging.request<{ entries: IdentityEntry[] }>(
        Subjects.admin.identityList,
        {},
        1500,
      );
      if (reply.ok) this.identities = { at: Date.now(), entries: reply.data.entries ?? [] };
    }
    const entry = this.identities?.entries.find((e) => e.agentId === agentId);
    return entry?.agentName || agentId;
  }
}
