import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  Durables,
  Streams,
  envelope,
  subject,
  type Envelope,
  type TurnGranted as TurnGrantedPayload,
} from '@dirigent/contracts';
import { COMMIT_TYPE, EventStore, type Commit } from '@dirigent/event-store';
import { Messaging, type RunningConsumer } from '@dirigent/messaging';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { DurableTimers } from '@dirigent/timers';
import {
  evolveChannel,
  initialChannelState,
  reactToChannelEvent,
  type ChannelEvent,
  type ChannelState,
  type Effect,
  type TurnDomainConfig,
} from '@dirigent/turn-domain';
import { channelSubject } from './channels';
import type { TurnCoordinatorConfig } from './config';
import { DiscordPort } from './discord';
import { KeyedQueue } from './keyed-queue';
import { TURN_DOMAIN_CONFIG } from './tokens';

export const SERVICE_NAME = 'turn-coordinator';
export const TIMER_COMMAND = 'channel-command';
export const CHANNEL_TOPIC = subject.aggregate('channel', '>');

interface Folded {
  state: ChannelState;
  seq: number;
}

/**
 * Performs the effects of committed channel events (grants, moderator messages, delivery
 * timers) as a durable consumer of the event store (ordered per channel), so that an effect is never lost
 * to a crash between the append and its execution. Every effect carries a deterministic id
 * (the turn id for grants, the commit sequence for messages, the timer key for timers), so a
 * redelivered commit repeats nothing.
 */
@Injectable()
export class Reactor {
  private readonly log = new Logger('reactor');
  private readonly folded = new Map<string, Folded>();
  private readonly queue = new KeyedQueue();
  private readonly concurrency: number;
  private consumer?: RunningConsumer;
  private timers?: DurableTimers;

  constructor(
    private readonly messaging: Messaging,
    private readonly store: EventStore,
    private readonly discord: DiscordPort,
    @Inject(TURN_DOMAIN_CONFIG) private readonly config: TurnDomainConfig,
    @Inject(SERVICE_CONFIG) serviceConfig: TurnCoordinatorConfig,
  ) {
    this.concurrency = serviceConfig.DIRIGENT_COORDINATOR_CONCURRENCY;
  }

  async start(timers: DurableTimers): Promise<void> {
    this.timers = timers;
    this.consumer = await this.messaging.consume<Commit<ChannelEvent>>({
      stream: Streams.eventStore,
      durable: Durables.coordinatorReactor,
      filterSubject: CHANNEL_TOPIC,
      maxDeliver: 20,
      ackWaitMs: 10_000,
      // Channels in parallel, each channel's commits in order.
      maxAckPending: this.concurrency * 4,
      concurrency: this.concurrency,
      backoffMs: [100, 500, 2000, 5000],
      handler: (_data, env, msg) => {
        if (env.type !== COMMIT_TYPE) return Promise.resolve();
        const { subject: subj, seq } = msg;
        return this.queue.run(subj, () => this.react(subj, seq, env));
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }

  /** The channel's state right before commit `seq` (which follows `previous`, if known). */
  private async stateBefore(
    channelSubj: string,
    channelId: string,
    seq: number,
    previous: number | undefined,
  ): Promise<Folded> {
    const cached = this.folded.get(channelId);
    if (previous === 0) return { state: initialChannelState(channelId), seq: 0 };
    if (cached && (previous === undefined ? cached.seq < seq : cached.seq === previous)) {
      return cached;
    }
    // Not contiguous (first sight after a start, or another replica reacted in between).
    const commits = await this.store.loadCommits<ChannelEvent>(channelSubj);
    let state = initialChannelState(channelId);
    let at = 0;
    for (const c of commits) {
      if (c.seq >= seq) break;
      state = c.envelope.data.events.reduce(evolveChannel, state);
      at = c.seq;
    }
    return { state, seq: at };
  }

  private async react(subj: string, seq: number, env: Envelope<Commit<ChannelEvent>>) {
    const channelId = subj.slice(channelSubject('').length);
    const before = await this.stateBefore(subj, channelId, seq, env.data.previousVersion);
    let state = before.state;
    const at = Date.parse(env.at);
    const events = env.data.events;
    for (let i = 0; i < events.length; i++) {
      state = evolveChannel(state, events[i]);
      const effects = reactToChannelEvent(events[i], state, this.config);
      for (let j = 0; j < effects.length; j++) {
        await this.perform(effects[j], `tc:${seq}:${i}:${j}`, at);
      }
    }
    this.folded.set(channelId, { state, seq });
  }

  private async perform(effect: Effect, id: string, committedAt: number): Promise<void> {
    switch (effect.kind) {
      case 'publish-granted': {
        const data: TurnGrantedPayload = {
          guildId: effect.guildId,
          channelId: effect.channelId,
          agentId: effect.agentId,
          turnId: effect.turnId,
          cycle: effect.cycle,
          reason: effect.reason,
        };
        await this.messaging.publish(
          subject.turnGranted(effect.channelId),
          envelope('turn.granted', SERVICE_NAME, data, { id: effect.turnId }),
        );
        return;
      }
      case 'send-message':
        await this.discord.send(id, {
          guildId: effect.guildId,
          channelId: effect.channelId,
          content: effect.content,
          purpose: effect.purpose,
          ...(effect.deleteAfterSend ? { deleteAfterSend: true } : {}),
        });
        return;
      case 'schedule':
        await this.timers!.schedule(effect.key, new Date(committedAt + effect.afterMs), {
          subject: subject.timerFired(SERVICE_NAME, TIMER_COMMAND),
          type: 'channel.timer-fired',
          data: { channelId: effect.channelId, command: effect.command },
        });
        return;
      case 'cancel':
        await this.timers!.cancel(effect.key);
        return;
      case 'log':
        if (effect.level === 'warn') this.log.warn({ ...effect.data, msg: effect.message });
        else this.log.log({ ...effect.data, msg: effect.message });
        return;
      default: {
        const unreachable: never = effect;
        throw new Error(`unknown effect ${JSON.stringify(unreachable)}`);
      }
    }
  }
}
