import { Controller, Logger } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  Durables,
  MessageCreated,
  ReactionChanged,
  SNOWFLAKE_PATTERN,
  MessageDeleted,
  Streams,
  Subjects,
  TurnGranted,
  TypingStarted,
} from '@dirigent/contracts';
import { JetStreamContext, PermanentError, type DurableEventOptions } from '@dirigent/messaging';
import { occurrence, Reactor } from '@dirigent/reactor';
import { OnGrant } from '../application/on-grant';
import { PersonaLearning } from '../application/persona-learning';
import { ReactToMessage } from '../application/react-to-message';
import { ROUTER_SERVICE } from '../application/schedule-followup';
import { DecideProposal } from '../steward/application/decide-proposal';
import { ModChannels } from '../steward/application/mod-channels';

const DISCORD_EVT_TOKENS = Subjects.discord.evtPrefix.split('.').length;

/** New messages only: the router does not answer history on its first start. */
const fromNow = { deliverPolicy: 'new' as const };

/**
 * The router's JetStream inputs: Discord events (parallel; each channel's turns run in
 * its lane), grants of the coordinator for its agents, and its own timers (handed to its
 * reactor: self-follow-ups and speculative turns).
 */
@Controller()
export class InputsHandler {
  private readonly log = new Logger('router:inputs');

  constructor(
    private readonly messages: ReactToMessage,
    private readonly grants: OnGrant,
    private readonly reactor: Reactor,
    private readonly proposals: DecideProposal,
    private readonly modChannels: ModChannels,
    private readonly learning: PersonaLearning,
  ) {}

  @EventPattern(Subjects.discord.evtAll, {
    stream: Streams.discordEvents,
    durable: Durables.routerDiscordEvents,
    maxDeliver: 5,
    ackWaitMs: 10_000,
    concurrency: 16,
    ...fromNow,
  } satisfies DurableEventOptions)
  async discordEvent(@Payload() data: Record<string, unknown>, @Ctx() ctx: JetStreamContext) {
    const tokens = ctx.subject.split('.');
    const kind = tokens.slice(DISCORD_EVT_TOKENS + 2).join('.');
    if (tokens[DISCORD_EVT_TOKENS + 1] === 'guild' && kind === 'joined') {
      // `subject.guildJoined(g)`: the guild id is the subject's.
      const guildId = tokens[DISCORD_EVT_TOKENS];
      if (!SNOWFLAKE_PATTERN.test(guildId)) throw new PermanentError(`bad guild id ${guildId}`);
      await this.modChannels.ensure(guildId);
    } else if (kind === 'message.created') {
      const m = MessageCreated.create(data);
      // Acknowledged once the message is in the router's durable inbox (its turns run after).
      await this.messages.observe(m, ctx.envelope.id);
      if (m.authorIsBot) await this.proposals.onMessage(m);
      else {
        // A reply to an agent's message is a learning signal (counted once per reply).
        await this.learning.reply(m);
        // Steward upkeep: jobs whose predicates read the channel's talk (a topic split).
        await this.reactor.offer(occurrence('event', ctx.subject, ctx.envelope));
      }
    } else if (kind === 'reaction.added') {
      const r = ReactionChanged.create(data);
      await this.proposals.onReaction(r);
      await this.learning.reaction(r);
    } else if (kind === 'typing.started') this.messages.typing(TypingStarted.create(data));
    else if (kind === 'message.deleted') this.messages.deleted(MessageDeleted.create(data));
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
