import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Durables, Streams, Subjects, TurnComplete, subject } from '@dirigent/contracts';
import {
  DiscordEventRoutes,
  JetStreamContext,
  type DurableEventOptions,
} from '@dirigent/messaging';
import { ChannelInbox } from '../application/channel-inbox';
import { ChannelTimerFired, ChannelTimerPayload } from '../application/channel-timer-fired';
import { CompleteTurn } from '../application/complete-turn';
import { MemberChanged } from '../application/member-changed';
import { ObserveMessage } from '../application/observe-message';
import { SERVICE_NAME, TIMER_COMMAND } from '../application/react-to-commit';
import { REACTOR_ACK_WAIT_MS, WORKING_EVERY_MS } from './channel-commits.handler';

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
  private readonly discord: DiscordEventRoutes;

  constructor(
    private readonly inbox: ChannelInbox,
    private readonly observeMessage: ObserveMessage,
    private readonly memberChanged: MemberChanged,
    private readonly completeTurn: CompleteTurn,
    private readonly timerFired: ChannelTimerFired,
  ) {
    /** The Discord events the coordinator uses, each queued on its channel's inbox. */
    this.discord = new DiscordEventRoutes(
      {
        'message.created': (m) => this.inbox.run(m.channelId, () => this.observeMessage.run(m)),
        'typing.started': (t) => this.inbox.run(t.channelId, () => this.observeMessage.typing(t)),
        'member.joined': (m) => this.inbox.run(m.channelId, () => this.memberChanged.run(m)),
        'member.left': (m) => this.inbox.run(m.channelId, () => this.memberChanged.run(m)),
      },
      (subject) => this.log.debug({ subject }, 'Discord event not used by the coordinator'),
    );
  }

  @EventPattern(Subjects.discord.evtAll, {
    stream: Streams.discordEvents,
    durable: Durables.coordinatorDiscordEvents,
    ...inputs,
  } satisfies DurableEventOptions)
  discordEvent(@Payload() data: Record<string, unknown>, @Ctx() ctx: JetStreamContext) {
    return this.discord.dispatch(data, ctx);
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
