import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Durables, Streams, Subjects, TurnGranted } from '@dirigent/contracts';
import {
  DiscordEventRoutes,
  JetStreamContext,
  PermanentError,
  type DurableEventOptions,
} from '@dirigent/messaging';
import { occurrence, Reactor } from '@dirigent/reactor';
import { OnGrant } from '../application/on-grant';
import { PersonaLearning } from '../learning/application/persona-learning';
import { ReactToMessage } from '../application/react-to-message';
import { ROUTER_SERVICE } from '../application/schedule-followup';
import { DecideProposal } from '../steward/application/decide-proposal';
import { ModChannels } from '../steward/application/mod-channels';

/** New messages only: the router does not answer history on its first start. */
const fromNow = { deliverPolicy: 'new' as const };

/**
 * The router's JetStream inputs: Discord events (parallel; each channel's turns run in
 * its lane), grants of the coordinator for its agents, and its own timers (handed to its
 * reactor: self-follow-ups and speculative turns).
 */
@Controller()
export class InputsHandler {
  private readonly discord: DiscordEventRoutes;

  constructor(
    private readonly messages: ReactToMessage,
    private readonly grants: OnGrant,
    private readonly reactor: Reactor,
    private readonly proposals: DecideProposal,
    private readonly modChannels: ModChannels,
    private readonly learning: PersonaLearning,
  ) {
    /**
     * Which area takes which Discord event, in the order they run: the core (its turns; a
     * message is acknowledged once it is in the durable inbox, its turns run after), the
     * learning loop (a reply, quote or reaction to an agent's message is a signal, counted once) and
     * the steward (a bot's proposal message or a reaction on it; upkeep jobs whose predicates
     * read a human's talk; the mod channel of a guild joined).
     */
    this.discord = new DiscordEventRoutes({
      'guild.joined': (guildId) => this.modChannels.ensure(guildId),
      'message.created': [
        (m, ctx) => this.messages.observe(m, ctx.envelope.id),
        (m) => (m.authorIsBot ? undefined : this.learning.message(m)),
        (m, ctx) =>
          m.authorIsBot
            ? this.proposals.onMessage(m)
            : this.reactor.offer(occurrence('event', ctx.subject, ctx.envelope)),
      ],
      // A ✅/❌ counts at the time it was given (its event's `at`), not when it is processed.
      'reaction.added': [
        (r, ctx) => this.proposals.onReaction(r, ctx.envelope.at),
        (r) => this.learning.reaction(r),
      ],
      'reaction.removed': (r) => this.learning.reactionRemoved(r),
      'typing.started': (t) => this.messages.typing(t),
      'message.deleted': (d) => this.messages.deleted(d),
    });
  }

  @EventPattern(Subjects.discord.evtAll, {
    stream: Streams.discordEvents,
    durable: Durables.routerDiscordEvents,
    maxDeliver: 5,
    ackWaitMs: 10_000,
    concurrency: 16,
    ...fromNow,
  } satisfies DurableEventOptions)
  discordEvent(@Payload() data: Record<string, unknown>, @Ctx() ctx: JetStreamContext) {
    return this.discord.dispatch(data, ctx);
  }

  @EventPattern(Subjects.turn.grantedAll, {
    stream: Streams.turnGranted,
    durable: Durables.routerTurnGranted,
    maxDeliver: 3,
    ackWaitMs: 300_000,
    concurrency: 16,
    ...fromNow,
  } satisfies DurableEventOptions)
  granted(@Payload() g: TurnGranted, @Ctx() ctx: JetStreamContext) {
    return this.grants.run(g, ctx.envelope.id);
  }

  @EventPattern(`${Subjects.timer.firedPrefix}.${ROUTER_SERVICE}.>`, {
    stream: Streams.timerFired,
    durable: Durables.routerTimers,
    // A firing can be in hand at more than one SIGKILL while it waits for its channel's lane.
    maxDeliver: 10,
    // Short, kept alive while a job runs or waits for its lane: a firing held by a killed
    // router comes back within seconds of the restart, not minutes after.
    ackWaitMs: 15_000,
    workingEveryMs: 5_000,
    concurrency: 16,
  } satisfies DurableEventOptions)
  async timer(@Ctx() ctx: JetStreamContext) {
    const outcomes = await this.reactor.offer(occurrence('timer', ctx.subject, ctx.envelope));
    if (!outcomes.length) throw new PermanentError(`unknown router timer ${ctx.envelope.type}`);
  }
}
