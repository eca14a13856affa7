import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { isConversational, type ChannelState } from '@dirigent/turn-domain';
import { ChannelInbox } from './channel-inbox';
import { Channels } from './channels';
import { DiscordPort } from './ports';

/** No later speaker in this cycle is still a member: the next advance is a cycle boundary. */
export function lastOfCycle(s: ChannelState): boolean {
  const members = new Set(s.members.map((m) => m.agentId));
  return !s.speakers.slice(s.position + 1).some((sp) => members.has(sp.agentId));
}

/** Waits between unanswered member queries of a channel: 1 s, doubling, at most 30 s. */
export const MEMBERS_RETRY_MS = { first: 1000, max: 30_000 };

/** Per key: when a failing call may be tried again (capped exponential backoff). */
export class RetryBackoff {
  private readonly failing = new Map<string, { failures: number; retryAt: number }>();

  constructor(private readonly delays = MEMBERS_RETRY_MS) {}

  /** Milliseconds until `key` may be tried again (0: now). */
  dueIn(key: string, now: number): number {
    return Math.max((this.failing.get(key)?.retryAt ?? now) - now, 0);
  }

  /** Records a failure; returns the wait before the next try. */
  failed(key: string, now: number): number {
    const failures = (this.failing.get(key)?.failures ?? 0) + 1;
    const wait = Math.min(this.delays.first * 2 ** (failures - 1), this.delays.max);
    this.failing.set(key, { failures, retryAt: now + wait });
    return wait;
  }

  succeeded(key: string): void {
    this.failing.delete(key);
  }
}

/**
 * Keeps a channel's member list current. The design rebuilds the speaker list at cycle
 * boundaries and wakes, so members are re-read from Discord right before a command that may
 * reach one. A channel whose query goes unanswered (the ingest down, its guild gone) carries
 * on with the members it knows, and is asked again only after a backoff: its inputs do not
 * each wait out a query timeout. A refresh skipped meanwhile is made up for by one retry when
 * the backoff is over, queued on the channel like any input.
 */
@Injectable()
export class Members implements OnModuleDestroy {
  private readonly log = new Logger('members');
  private readonly backoff = new RetryBackoff();
  private readonly retries = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly channels: Channels,
    private readonly discord: DiscordPort,
    private readonly inbox: ChannelInbox,
  ) {}

  /** Call from the channel's inbox: the members are applied in order with its other inputs. */
  async refresh(channelId: string, guildId: string): Promise<void> {
    if (this.backoff.dueIn(channelId, Date.now()) > 0) {
      this.retryLater(channelId, guildId);
      return;
    }
    let agents;
    try {
      agents = await this.discord.agentsIn(guildId, channelId);
    } catch (e) {
      // The ingest being down must not stall turns: carry on with the members we know.
      const retryInMs = this.backoff.failed(channelId, Date.now());
      this.log.warn(
        { channelId, err: (e as Error).message, retryInMs },
        'members refresh failed; the channel goes on with the members it knows',
      );
      return;
    }
    this.backoff.succeeded(channelId);
    await this.channels.execute(channelId, { type: 'RefreshMembers', data: { agents } });
  }

  /** Refreshes the members when the channel is idle or about to reach a cycle boundary. */
  async refreshIfBoundary(channelId: string, guildId: string, state: ChannelState): Promise<void> {
    if (!isConversational(state.mode) || state.tmState === 'archived') return;
    if (state.currentTurn !== null && !lastOfCycle(state)) return;
    await this.refresh(channelId, guildId);
  }

  onModuleDestroy(): void {
    for (const t of this.retries.values()) clearTimeout(t);
    this.retries.clear();
  }

  /** One retry of a skipped refresh once the backoff is over (none while one is pending). */
  private retryLater(channelId: string, guildId: string): void {
    if (this.retries.has(channelId)) return;
    const timer = setTimeout(
      () => {
        this.retries.delete(channelId);
        this.inbox
          .run(channelId, () => this.refresh(channelId, guildId))
          .catch((e: Error) =>
            this.log.warn({ channelId, err: e.message }, 'members retry failed to apply'),
          );
      },
      this.backoff.dueIn(channelId, Date.now()),
    );
    timer.unref();
    this.retries.set(channelId, timer);
  }
}
