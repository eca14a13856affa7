import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
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
  PermanentError,
  type DurableEventOptions,
} from '@dirigent/messaging';
import { DiscordConnection } from '../adapters/discord-connection';
import { AddReaction } from '../application/add-reaction';
import { DeleteMessage } from '../application/delete-message';
import { SendMessage } from '../application/send-message';
import { ShowTyping } from '../application/show-typing';

/**
 * Commands out: one durable work-queue consumer for `Subjects.discord.cmdAll`. Transient
 * failures (5xx, network) are retried with the backoff below; 429s wait inside discord.js's
 * REST queue; permanent 4xx are dead-lettered at once. `maxDeliver` comes from
 * `DISCORD_COMMAND_MAX_DELIVER` (see the module).
 *
 * Each channel is a lane: its commands run one at a time in stream order, while other
 * channels' run beside them, so a 429 in one channel (a per-route bucket in discord.js)
 * delays no other. Discord's global limit stays with discord.js's REST manager.
 */
@Controller()
export class DiscordCommandHandlers {
  private readonly lanes = new KeyedQueue();

  constructor(
    private readonly connection: DiscordConnection,
    private readonly sendMessage: SendMessage,
    private readonly deleteMessage: DeleteMessage,
    private readonly addReaction: AddReaction,
    private readonly showTyping: ShowTyping,
  ) {}

  @EventPattern(Subjects.discord.cmdAll, {
    stream: Streams.discordCommands,
    durable: Durables.ingestCommands,
    maxDeliver: 8,
    // Long enough for a 429 wait inside discord.js before JetStream redelivers.
    ackWaitMs: 60_000,
    backoffMs: [500, 2000, 5000, 15000, 30000],
    concurrency: 16,
  } satisfies DurableEventOptions)
  async execute(@Payload() data: Record<string, unknown>, @Ctx() ctx: JetStreamContext) {
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
