import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AddReactionCommand,
  DeleteMessageCommand,
  Durables,
  SendMessageCommand,
  Streams,
  Subjects,
  TypingCommand,
} from '@dirigent/contracts';
import {
  JetStreamContext,
  KeyedQueue,
  Messaging,
  observeHandlerLatency,
  PermanentError,
  runDurableConsumer,
  type DurableEventOptions,
  type RunningConsumer,
} from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import { DiscordConnection } from '../adapters/discord-connection';
import type { DiscordIngestConfig } from '../config';
import { AddReaction } from '../application/add-reaction';
import { DeleteMessage } from '../application/delete-message';
import { SendMessage } from '../application/send-message';
import { ShowTyping } from '../application/show-typing';

/** The command consumer's settings (`maxDeliver` from `DISCORD_COMMAND_MAX_DELIVER`). */
export const COMMAND_CONSUMER = {
  stream: Streams.discordCommands,
  durable: Durables.ingestCommands,
  filterSubject: Subjects.discord.cmdAll,
  maxDeliver: 8,
  // A dead executor's deliveries come back to shard 0's next holder after this ack wait;
  // one in hand (a 429 wait inside discord.js, a lane behind others) says so every 5 s.
  ackWaitMs: 15_000,
  workingEveryMs: 5_000,
  maxAckPending: 256,
  backoffMs: [500, 2000, 5000, 15000, 30000],
  concurrency: 16,
} satisfies DurableEventOptions;

/**
 * Commands out: one durable work-queue consumer for `Subjects.discord.cmdAll`, run by one
 * replica at a time (the holder of shard 0's lease starts and stops it): discord.js's REST
 * manager keeps the bot's global rate limit per process, and one executor keeps each
 * channel's commands in stream order whichever shard holds the channel's guild. Transient
 * failures (5xx, network) are retried with the backoff above; 429s wait inside discord.js's
 * REST queue; permanent 4xx are dead-lettered at once.
 *
 * Each channel is a lane: its commands run one at a time in stream order, while other
 * channels' run beside them, so a 429 in one channel (a per-route bucket in discord.js)
 * delays no other.
 */
@Injectable()
export class DiscordCommandHandlers {
  private readonly log = new Logger('discord-commands');
  private readonly lanes = new KeyedQueue();
  private running?: RunningConsumer;

  constructor(
    private readonly messaging: Messaging,
    @Inject(SERVICE_CONFIG) private readonly config: DiscordIngestConfig,
    private readonly connection: DiscordConnection,
    private readonly sendMessage: SendMessage,
    private readonly deleteMessage: DeleteMessage,
    private readonly addReaction: AddReaction,
    private readonly showTyping: ShowTyping,
  ) {}

  /** Starts taking commands (this replica holds shard 0). */
  async start(): Promise<void> {
    if (this.running) return;
    const spec = { ...COMMAND_CONSUMER, maxDeliver: this.config.DISCORD_COMMAND_MAX_DELIVER };
    this.running = await runDurableConsumer(
      this.messaging.client,
      this.messaging.source,
      spec,
      async (env, m) => {
        const startedAt = performance.now();
        let outcome = 'error';
        try {
          await this.execute(
            env.data as Record<string, unknown>,
            new JetStreamContext([m, env, spec]),
          );
          outcome = 'ok';
        } finally {
          observeHandlerLatency({ kind: 'consumer', name: spec.durable, outcome }, startedAt);
        }
      },
      {
        info: (o, msg) => this.log.log({ ...o, msg }),
        warn: (o, msg) => this.log.warn({ ...o, msg }),
        error: (o, msg) => this.log.error({ ...o, msg }),
      },
    );
  }

  /** Stops taking commands; those in hand finish first (or come back after their ack wait). */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.stop();
  }

  async execute(data: Record<string, unknown>, ctx: JetStreamContext): Promise<void> {
    const run = this.useCase(ctx.subject, data, ctx.envelope.id);
    const client = await this.connection.startedClient(() => ctx.working());
    await this.lanes.run(String(data.channelId), () => run(client));
  }

  /** Validates first, so a command that can never run is dead-lettered without waiting. */
  private useCase(subject: string, data: Record<string, unknown>, envelopeId: string) {
    type Run = (client: Parameters<SendMessage['run']>[0]) => Promise<void>;
    switch (subject) {
      case Subjects.discord.cmdSendMessage: {
        const cmd = SendMessageCommand.create(data);
        return ((c) => this.sendMessage.run(c, cmd, envelopeId)) satisfies Run;
      }
      case Subjects.discord.cmdDeleteMessage: {
        const cmd = DeleteMessageCommand.create(data);
        return ((c) => this.deleteMessage.run(c, cmd)) satisfies Run;
      }
      case Subjects.discord.cmdAddReaction: {
        const cmd = AddReactionCommand.create(data);
        return ((c) => this.addReaction.run(c, cmd)) satisfies Run;
      }
      case Subjects.discord.cmdTyping: {
        const cmd = TypingCommand.create(data);
        return ((c) => this.showTyping.run(c, cmd)) satisfies Run;
      }
      default:
        throw new PermanentError(`no command handler for ${subject}`);
    }
  }
}
