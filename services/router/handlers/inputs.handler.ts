import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  Durables,
  FollowupDue,
  MessageCreated,
  MessageDeleted,
  RouterEventTypes,
  SpeculativeDue,
  Streams,
  Subjects,
  TurnGranted,
  TypingStarted,
} from '@dirigent/contracts';
import { JetStreamContext, PermanentError, type DurableEventOptions } from '@dirigent/messaging';
import { FireFollowup } from '../application/fire-followup';
import { OnGrant } from '../application/on-grant';
import { ReactToMessage } from '../application/react-to-message';
import { ROUTER_SERVICE } from '../application/schedule-followup';
import { SpeculativeTurns } from '../application/speculative';

const DISCORD_EVT_TOKENS = Subjects.discord.evtPrefix.split('.').length;

/** New messages only: the router does not answer history on its first start. */
const fromNow = { deliverPolicy: 'new' as const };

/**
 * The router's JetStream inputs: Discord events (parallel; each channel's turns run in
 * its lane), grants of the coordinator for its agents, and its own timers.
 */
@Controller()
export class InputsHandler {
  private readonly log = new Logger('router:inputs');

  constructor(
    private readonly messages: ReactToMessage,
    private readonly grants: OnGrant,
    private readonly followups: FireFollowup,
    private readonly speculative: SpeculativeTurns,
  ) {}

  @EventPattern(Subjects.discord.evtAll, {
    stream: Streams.discordEvents,
    durable: Durables.routerDiscordEvents,
    maxDeliver: 5,
    ackWaitMs: 10_000,
    concurrency: 16,
    ...fromNow,
  } satisfies DurableEventOptions)
  discordEvent(@Payload() data: Record<string, unknown>, @Ctx() ctx: JetStreamContext) {
    const tokens = ctx.subject.split('.');
    const kind = tokens.slice(DISCORD_EVT_TOKENS + 2).join('.');
    if (kind === 'message.created') this.messages.observe(MessageCreated.create(data));
    else if (kind === 'typing.started') this.messages.typing(TypingStarted.create(data));
    else if (kind === 'message.deleted')
      this.messages.deleted(MessageDeleted.create(data).messageId);
  }

  @EventPattern(Subjects.turn.grantedAll, {
    stream: Streams.turnGranted,
    durable: Durables.routerTurnGranted,
    maxDeliver: 3,
    ackWaitMs: 300_000,
    concurrency: 16,
    ...fromNow,
  } satisfies DurableEventOptions)
  granted(@Payload() g: TurnGranted) {
    return this.grants.run(g);
  }

  @EventPattern(`${Subjects.timer.firedPrefix}.${ROUTER_SERVICE}.>`, {
    stream: Streams.timerFired,
    durable: Durables.routerTimers,
    maxDeliver: 3,
    ackWaitMs: 300_000,
    concurrency: 16,
  } satisfies DurableEventOptions)
  timer(@Payload() data: Record<string, unknown>, @Ctx() ctx: JetStreamContext) {
    switch (ctx.envelope.type) {
      case RouterEventTypes.followupDue:
        return this.followups.run(FollowupDue.create(data));
      case RouterEventTypes.speculativeDue:
        return this.speculative.fire(SpeculativeDue.create(data));
      default:
        throw new PermanentError(`unknown router timer ${ctx.envelope.type}`);
    }
  }
}
