import { randomInt } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { Aggregates, DomainError, ErrorCodes, subject, type ErrorCode } from '@dirigent/contracts';
import { CommandHandler, EventStore, type SnapshotStore } from '@dirigent/event-store';
import {
  decideChannel,
  evolveChannel,
  hasSeenMessage,
  initialChannelState,
  type ChannelCommand,
  type ChannelEvent,
  type ChannelState,
  type DomainErrorCode,
  type DomainError as TurnDomainError,
  type TurnDomainConfig,
} from '@dirigent/turn-domain';
import { CHANNEL_SNAPSHOTS, TURN_DOMAIN_CONFIG } from './tokens';

const CODES: Record<DomainErrorCode, ErrorCode> = {
  BAD_REQUEST: ErrorCodes.BAD_REQUEST,
  INVALID_MODE: ErrorCodes.INVALID_MODE,
  MODE_LOCKED: ErrorCodes.MODE_LOCKED,
  FORBIDDEN: ErrorCodes.FORBIDDEN,
  NOT_CURRENT_SPEAKER: ErrorCodes.CONFLICT,
  NOT_A_DISCUSSION: ErrorCodes.NOT_FOUND,
  ALREADY_EXISTS: ErrorCodes.CONFLICT,
  NOT_FOUND: ErrorCodes.NOT_FOUND,
};

/** A decider refusal on its way to the wire: keeps the domain code for callers that care. */
export class RefusedError extends DomainError {
  constructor(readonly refusal: TurnDomainError) {
    super(CODES[refusal.code], refusal.message, {
      ...(refusal.details ?? {}),
      reason: refusal.code,
    });
  }
}

export const channelSubject = (channelId: string) =>
  subject.aggregate(Aggregates.channel, channelId);

type ChannelHandler = CommandHandler<ChannelCommand, ChannelEvent, ChannelState>;

/**
 * A channel's snapshot is written after this many of its commits (about a dozen turns), so
 * a cold load reads about this many commits after the snapshot whatever its history. The
 * reactor writes them (react-to-commit.ts): its snapshots are of commits whose effects are
 * done, so the reactor of a restarted process, which starts at the first commit it had not
 * acknowledged, can use them too; the command side only reads them.
 */
export const SNAPSHOT_EVERY_COMMITS = 32;

/**
 * The command side of the channel aggregates: one event-store subject per channel,
 * optimistic concurrency, state cached in memory and rebuilt from the events after a
 * restart. Also lets check-turn wait until a channel has processed a given message.
 */
@Injectable()
export class Channels {
  private readonly handlers = new Map<string, ChannelHandler>();
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Grants published for a channel that its cached state has not been seen to hold. */
  private readonly grantsHeard = new Map<string, string>();

  constructor(
    private readonly store: EventStore,
    @Inject(TURN_DOMAIN_CONFIG) private readonly config: TurnDomainConfig,
    @Optional()
    @Inject(CHANNEL_SNAPSHOTS)
    private readonly snapshots?: SnapshotStore<ChannelState>,
  ) {}

  private handler(channelId: string): ChannelHandler {
    let h = this.handlers.get(channelId);
    if (!h) {
      const config = this.config;
      h = new CommandHandler(
        this.store,
        {
          initialState: () => initialChannelState(channelId),
          decide: (command, state) => {
            const decision = decideChannel(command, state, config);
            if (!decision.ok) throw new RefusedError(decision.error);
            return [...decision.events];
          },
          evolve: evolveChannel,
        },
        { snapshots: this.snapshots },
      );
      this.handlers.set(channelId, h);
    }
    return h;
  }

  /**
   * The channel's state from memory, read again from the event store first when a grant was
   * published for it that the cached state does not hold (another replica granted it), so a
   * grant an agent has heard of is never answered with an older state.
   */
  async state(channelId: string): Promise<ChannelState> {
    const now = this.stateInMemory(channelId);
    if (now) return now;
    const cached = (await this.handler(channelId).state(channelSubject(channelId))).state;
    const heard = this.grantsHeard.get(channelId);
    if (heard === undefined) return cached;
    const state = cached.currentTurn?.turnId === heard ? cached : await this.freshState(channelId);
    if (this.grantsHeard.get(channelId) === heard) this.grantsHeard.delete(channelId);
    return state;
  }

  /**
   * What {@link state} answers without a read, synchronously: the cached state when it is
   * known to be current and holds every grant heard for the channel; else undefined.
   */
  stateInMemory(channelId: string): ChannelState | undefined {
    const cached = this.handlers.get(channelId)?.currentState(channelSubject(channelId));
    if (!cached) return undefined;
    const heard = this.grantsHeard.get(channelId);
    if (heard === undefined) return cached;
    if (cached.currentTurn?.turnId !== heard) return undefined;
    this.grantsHeard.delete(channelId);
    return cached;
  }

  /**
   * A grant of turn `turnId` was published (by this or another replica). Called for each
   * `turn.granted` as it arrives, before any request that a holder of that grant can send:
   * NATS delivers the grant to this process before the agent has it.
   */
  grantHeard(channelId: string, turnId: string): void {
    if (this.handlers.has(channelId)) this.grantsHeard.set(channelId, turnId);
  }

  /** Every cached state may be behind (e.g. grants missed while disconnected from NATS). */
  invalidateAll(): void {
    for (const channelId of this.handlers.keys()) this.invalidate(channelId);
  }

  /**
   * Decides and appends; a refusal is thrown as a {@link RefusedError}. A decision that
   * changes nothing (or refuses) is only trusted once the cached state is known to be the
   * latest: if another replica appended meanwhile, the state is reloaded and the command
   * decided again, so no input is dropped on stale state.
   */
  async execute(
    channelId: string,
    command: ChannelCommand,
  ): Promise<{ events: ChannelEvent[]; state: ChannelState }> {
    // Seed and time are fixed here, once: a retried decision sees the same inputs.
    const withSeed: ChannelCommand = {
      ...command,
      seed: command.seed ?? randomInt(2 ** 31),
      at: command.at ?? Date.now(),
    };
    const subj = channelSubject(channelId);
    const h = this.handler(channelId);
    const run = async () => {
      try {
        return await h.handle(subj, withSeed);
      } catch (e) {
        if (e instanceof RefusedError)
          return { refused: e, version: (await h.state(subj)).version };
        throw e;
      }
    };
    let result = await run();
    const unchanged = 'refused' in result || result.events.length === 0;
    if (unchanged && (await this.store.version(subj)) > result.version) {
      h.invalidate(subj);
      result = await run();
    }
    if ('refused' in result) throw result.refused;
    if (result.events.length) this.notify(channelId);
    return { events: result.events, state: result.state };
  }

  /** The channel's state, checked against the event store's latest version first. */
  async freshState(channelId: string): Promise<ChannelState> {
    const subj = channelSubject(channelId);
    const h = this.handler(channelId);
    const cached = await h.state(subj);
    if ((await this.store.version(subj)) === cached.version) return cached.state;
    h.invalidate(subj);
    return (await h.state(subj)).state;
  }

  /** Forgets cached state, e.g. when another process may have written. */
  invalidate(channelId: string): void {
    this.handlers.get(channelId)?.invalidate(channelSubject(channelId));
  }

  /** Drops the cached state when it is older than `version` (another replica wrote). */
  async invalidateIfBehind(channelId: string, version: number): Promise<void> {
    const h = this.handlers.get(channelId);
    if (!h) return;
    // No read here: a state already due to be caught up (e.g. a channel another replica
    // serves, written there commit after commit) is read once, when it is next used.
    const cached = h.cachedVersion(channelSubject(channelId));
    if (cached === undefined || cached < version) {
      h.invalidate(channelSubject(channelId));
      this.notify(channelId);
    }
  }

  /**
   * The channel's state once it has processed `messageId`, or its current state after
   * `timeoutMs` (causal consistency for check-turn).
   */
  async stateAfter(channelId: string, messageId: string, timeoutMs: number): Promise<ChannelState> {
    const deadline = Date.now() + timeoutMs;
    for (let reloaded = false; ; ) {
      const state = await this.state(channelId);
      if (hasSeenMessage(state, messageId)) return state;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        if (reloaded) return state;
        // Another instance may have processed it: read the events once more.
        this.invalidate(channelId);
        reloaded = true;
        continue;
      }
      await new Promise<void>((resolve) => {
        const set = this.waiters.get(channelId) ?? new Set();
        this.waiters.set(channelId, set);
        const done = () => {
          clearTimeout(timer);
          set.delete(done);
          if (set.size === 0 && this.waiters.get(channelId) === set) this.waiters.delete(channelId);
          resolve();
        };
        const timer = setTimeout(done, Math.min(remaining, 250));
        set.add(done);
      });
    }
  }

  private notify(channelId: string): void {
    const set = this.waiters.get(channelId);
    if (set) for (const done of [...set]) done();
  }
}
