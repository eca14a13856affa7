import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  Durables,
  MemberChanged as MemberChangedEvent,
  MessageCreated,
  Streams,
  TypingStarted,
  Subjects,
  TurnComplete,
  subject,
  type DiscordEventKind,
} from '@dirigent/contracts';
import { JetStreamContext, PermanentError, type DurableEventOptions } from '@dirigent/messaging';
import { ChannelInbox } from '../application/channel-inbox';
import { ChannelTimerFired, ChannelTimerPayload } from '../application/channel-timer-fired';
import { CompleteTurn } from '../application/complete-turn';
import { MemberChanged } from '../application/member-changed';
import { ObserveMessage } from '../application/observe-message';
import { SERVICE_NAME, TIMER_COMMAND } from '../application/react-to-commit';
import { REACTOR_ACK_WAIT_MS, WORKING_EVERY_MS } from './channel-commits.handler';

const DISCORD_EVT_TOKENS = Subjects.discord.evtPrefix.split('.').length;

/**
 * Channels in parallel (DIRIGENT_COORDINATOR_CONCURRENCY overrides), each in order. The
 * reactor's short ack wait with in-progress signals: an input a killed instance held comes
 * back within a second.
 */
const inputs = {
  maxDeliver: 10,
  ackWaitMs: REACTOR_ACK_WAIT_MS,
  workingEveryMs: WORKING_EVERY_MS,
  backoffMs: [100, 500, 2000, 5000],
  // After a restart or takeover, a dead holder's inputs come back before newer ones.
  awaitAbandoned: true,
};

/**
 * The coordinator's JetStream inputs: Discord events, turn completions and fired timers.
 * Each is queued on its channel's inbox, so a channel's inputs run in order.
 */
@Controller()
export class ChannelInputsHandler {
  private readonly log = new Logger('channel-inputs');

  constructor(
    private readonly inbox: ChannelInbox,
    private readonly observeMessage: ObserveMessage,
    private readonly memberChanged: MemberChanged,
    private readonly completeTurn: CompleteTurn,
    private readonly timerFired: ChannelTimerFired,
  ) {}

  @EventPattern(Subjects.discord.evtAll, {
    stream: Streams.discordEvents,
    durable: Durables.coordinatorDiscordEvents,
    ...inputs,
  } satisfies DurableEventOptions)
  discordEvent(@Payload() data: Record<string, unknown>, @Ctx() ctx: JetStreamContext) {
    const tokens = ctx.subject.split('.');
    const channelId = tokens[DISCORD_EVT_TOKENS + 1];
    const kind = tokens.slice(DISCORD_EVT_TOKENS + 2).join('.') as DiscordEventKind;
    if (!channelId) throw new PermanentError(`unexpected subject ${ctx.subject}`);
    switch (kind) {
      case 'message.created': {
        const m = MessageCreated.create(data);
        return this.inbox.run(m.channelId, () => this.observeMessage.run(m));
      }
      case 'typing.started': {
        const t = TypingStarted.create(data);
        return this.inbox.run(t.channelId, () => this.observeMessage.typing(t));
      }
      case 'member.joined':
      case 'member.left': {
        const m = MemberChangedEvent.create(data);
        return this.inbox.run(m.channelId, () => this.memberChanged.run(m));
      }
      default:
        this.log.debug({ subject: ctx.subject }, 'Discord event not used by the coordinator');
        return undefined;
    }
  }

  @EventPattern(Subjects.turn.completeAll, {
    stream: Streams.turnComplete,
    durable: Durables.coordinatorTurnComplete,
    ...inputs,
  } satisfies DurableEventOptions)
  turnComplete(@Payload() t: TurnComplete, @Ctx() ctx: JetStreamContext) {
    // JetStream's time, not the sender's clock: fences completions published before a grant.
    const publishedAt = Math.floor(Number(ctx.message.info.timestampNanos) / 1e6);
    return this.inbox.run(t.channelId, () => this.completeTurn.run(t, publishedAt));
  }

  @EventPattern(subject.timerFired(SERVICE_NAME, TIMER_COMMAND), {
    stream: Streams.timerFired,
    durable: Durables.coordinatorTimers,
    maxDeliver: 10,
    ackWaitMs: REACTOR_ACK_WAIT_MS,
    workingEveryMs: WORKING_EVERY_MS,
    awaitAbandoned: true,
  } satisfies DurableEventOptions)
  timer(@Payload() t: ChannelTimerPayload) {
    return this.inbox.run(t.channelId, () => this.timerFired.run(t));
  }
}
