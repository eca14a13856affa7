import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  Aggregates,
  EnvelopeTypes,
  Streams,
  envelope,
  subject,
  type Envelope,
  type TurnGranted as TurnGrantedPayload,
} from '@dirigent/contracts';
import { EventStore, foldAggregate, type Commit, type SnapshotStore } from '@dirigent/event-store';
import { KeyedQueue, Messaging } from '@dirigent/messaging';
import { DurableTimers } from '@dirigent/timers';
import {
  evolveChannel,
  initialChannelState,
  type ChannelEvent,
  type ChannelState,
  type Effect,
  type TurnDomainConfig,
} from '@dirigent/turn-domain';
import { channelSubject, SNAPSHOT_EVERY_COMMITS } from './channels';
import { isCurrent, isFenced, planEffects, type PlannedEffect } from './effect-fence';
import { DiscordPort } from './ports';
import { CHANNEL_SNAPSHOTS, TURN_DOMAIN_CONFIG } from './tokens';
import { grantsPublished } from '../adapters/metrics';

export const SERVICE_NAME = 'turn-coordinator';

export const TIMER_COMMAND = 'channel-command';
export const CHANNEL_TOPIC = subject.aggregate(Aggregates.channel, '>');

const isTimer = (p: PlannedEffect) => p.effect.kind === 'schedule' || p.effect.kind === 'cancel';

/**
 * The effects in the order they are performed: grants and messages as planned, then the
 * timers (in their planned order). A timer's due time comes from the commit, not from when it
 * is written, and each effect is idempotent and redone by a redelivery, so the order only
 * decides what waits: the next speaker no longer waits for two or three timer writes.
 */
export function timersLast(effects: readonly PlannedEffect[]): PlannedEffect[] {
  return [...effects.filter((p) => !isTimer(p)), ...effects.filter(isTimer)];
}

interface Folded {
  state: ChannelState;
  seq: number;
}

/**
 * Performs the effects of committed channel events (grants, moderator messages, delivery
 * timers). It runs as a durable, per-channel ordered consumer of the event store, so that an
 * effect is never lost to a crash between the append and its execution. Every effect carries a
 * deterministic id (the turn id for grants, the commit sequence for messages, the timer key
 * for timers), and effects that serve a turn are fenced by it: a redelivered commit whose
 * turn is no longer open publishes no grant, ping or timer, and a grant already stored is
 * not published again to core-NATS subscribers.
 */
@Injectable()
export class ReactToCommit {
  private readonly log = new Logger('reactor');
  private readonly folded = new Map<string, Folded>();
  /** The newest state seen per channel, so that fencing old commits folds only what is new. */
  private readonly head = new Map<string, Folded>();
  private readonly queue = new KeyedQueue();
  /** Commits reacted to per channel since its last snapshot. */
  private readonly sinceSnapshot = new Map<string, number>();

  constructor(
    private readonly messaging: Messaging,
    private readonly store: EventStore,
    private readonly discord: DiscordPort,
    private readonly timers: DurableTimers,
    @Inject(TURN_DOMAIN_CONFIG) private readonly config: TurnDomainConfig,
    @Optional()
    @Inject(CHANNEL_SNAPSHOTS)
    private readonly snapshots?: SnapshotStore<ChannelState>,
  ) {}

  /** Reacts to commit `seq` on `subj`; commits of one channel in order. */
  run(subj: string, seq: number, env: Envelope<Commit<ChannelEvent>>): Promise<void> {
    return this.queue.run(subj, () => this.react(subj, seq, env));
  }

  /** The channel's state right before commit `seq` (which follows `previous`, if known). */
  private async stateBefore(
    channelSubj: string,
    channelId: string,
    seq: number,
    previous: number | undefined,
  ): Promise<Folded> {
    const cached = this.folded.get(channelId);
    if (previous === 0) {
      this.sinceSnapshot.set(channelId, 0);
      return { state: initialChannelState(channelId), seq: 0 };
    }
    if (cached && (previous === undefined ? cached.seq < seq : cached.seq === previous)) {
      return cached;
    }
    // Not contiguous (first sight after a start, or another replica reacted in between):
    // from the channel's snapshot when it is older than this commit, else from the start.
    const { state, version, folded } = await foldAggregate<ChannelEvent, ChannelState>(
      this.store,
      channelSubj,
      { initialState: () => initialChannelState(channelId), evolve: evolveChannel },
      { snapshots: this.snapshots, before: seq },
    );
    this.sinceSnapshot.set(channelId, folded);
    return { state, seq: version };
  }

  /**
   * Snapshots the channel's state after commit `seq`, whose effects are done, once enough
   * commits have passed since the last snapshot (channels.ts, SNAPSHOT_EVERY_COMMITS).
   */
  private snapshotAfter(
    channelSubj: string,
    channelId: string,
    seq: number,
    commitId: string,
    state: ChannelState,
  ) {
    const since = (this.sinceSnapshot.get(channelId) ?? 0) + 1;
    if (this.snapshots && since >= SNAPSHOT_EVERY_COMMITS) {
      this.snapshots.write(channelSubj, { version: seq, commitId, state });
      this.sinceSnapshot.set(channelId, 0);
    } else {
      this.sinceSnapshot.set(channelId, since);
    }
  }

  /** The channel's latest committed state; `after` is the state right after commit `seq`. */
  private async latest(
    channelSubj: string,
    channelId: string,
    seq: number,
    after: ChannelState,
  ): Promise<Folded> {
    const version = await this.store.version(channelSubj);
    if (version <= seq) return { state: after, seq };
    let base = this.head.get(channelId);
    if (!base || base.seq < seq) base = { state: after, seq };
    if (base.seq === version) return base;
    let { state, seq: at } = base;
    for (const c of await this.store.loadCommits<ChannelEvent>(channelSubj, base.seq)) {
      state = c.envelope.data.events.reduce(evolveChannel, state);
      at = c.seq;
    }
    const head = { state, seq: at };
    this.head.set(channelId, head);
    return head;
  }

  /** Whether grant `turnId` is already the channel's last stored grant. */
  private async alreadyGranted(channelId: string, turnId: string): Promise<boolean> {
    try {
      const sm = await this.messaging.client.jsm.streams.getMessage(Streams.turnGranted, {
        last_by_subj: subject.turnGranted(channelId),
      });
      return sm?.json<Envelope>().id === turnId;
    } catch {
      return false;
    }
  }

  private async react(subj: string, seq: number, env: Envelope<Commit<ChannelEvent>>) {
    const channelId = subj.slice(channelSubject('').length);
    const before = await this.stateBefore(subj, channelId, seq, env.data.previousVersion);
    const plan = planEffects(before.state, env.data.events, seq, this.config);
    const at = Date.parse(env.at);
    let latest: Folded | undefined;
    for (const p of timersLast(plan.effects)) {
      if (isFenced(p)) {
        const grant = p.effect.kind === 'publish-granted' ? p.effect.turnId : undefined;
        // A commit that is no longer the newest is checked again before each effect. Any
        // earlier delivery of this commit may have published its grant: one that a killed
        // process left unacked, or one that waited past the ack wait in this process (a
        // delivery count says nothing about the order copies are handled in). Both reads
        // at once: they are most of the time between a commit and its grant.
        const [fresh, published] = await Promise.all([
          !latest || latest.seq > seq ? this.latest(subj, channelId, seq, plan.state) : latest,
          grant !== undefined ? this.alreadyGranted(channelId, grant) : false,
        ]);
        latest = fresh;
        if (!isCurrent(p, latest.state.currentTurn?.turnId ?? null)) {
          this.log.debug({ channelId, seq, turnId: p.turnId, kind: p.effect.kind, msg: 'stale' });
          continue;
        }
        if (published) continue;
      }
      await this.perform(p.effect, p.id, at);
    }
    this.folded.set(channelId, { state: plan.state, seq });
    this.snapshotAfter(subj, channelId, seq, env.id, plan.state);
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
          envelope(EnvelopeTypes.turnGranted, SERVICE_NAME, data, { id: effect.turnId }),
        );
        grantsPublished.inc();
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
        await this.timers.schedule(effect.key, new Date(committedAt + effect.afterMs), {
          subject: subject.timerFired(SERVICE_NAME, TIMER_COMMAND),
          type: EnvelopeTypes.channelTimerFired,
          data: { channelId: effect.channelId, command: effect.command },
        });
        return;
      case 'cancel':
        await this.timers.cancel(effect.key);
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
