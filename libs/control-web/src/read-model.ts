import { Logger } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Durables, subject, type IdentityEntry } from '@dirigent/contracts';
import type { EventStore } from '@dirigent/event-store';
import { ChannelRow, IdentityRow, ProjectionCheckpoint, TurnEventRow } from '@dirigent/persistence';
import { initialChannelState, type ChannelEvent, type ChannelState } from '@dirigent/turn-domain';
import type { TimelineCommit } from './timeline';

export const CHANNEL_AGGREGATE = 'channel';
export const IDENTITY_AGGREGATE = 'identity';
const IDENTITY_SUBJECT = subject.aggregate(IDENTITY_AGGREGATE, 'registry');

/** Timeline events read per channel (the newest). */
const TIMELINE_EVENTS = 400;
const POLL_MS = 20;

export interface ChannelRead {
  /** 0 when the coordinator has no commit for the channel. */
  version: number;
  state: ChannelState;
  /** Whether the projection had caught up with the event store's latest commit. */
  current: boolean;
}

/**
 * The coordinator's read model in Postgres, as the control page, the playground and admin
 * reads see it: `tc_channel` (each channel's state, folded once by the channel
 * projection), `tc_turn_event` (timelines) and `tc_identity`. A read first takes the
 * aggregate's latest version from the event store and waits (up to `waitMs`) until the
 * projection holds it, so an answer is never older than the commit that announced it.
 */
export class ChannelReadModel {
  private readonly log = new Logger('read-model');

  constructor(
    private readonly em: EntityManager,
    private readonly store: EventStore,
    private readonly waitMs = 5000,
  ) {}

  /** Polls `read` until `done` holds for its result, or the wait is over. */
  private async until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<[T, boolean]> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const v = await read();
      if (done(v)) return [v, true];
      if (Date.now() >= deadline) return [v, false];
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  async channel(channelId: string): Promise<ChannelRead> {
    const latest = await this.store.version(subject.aggregate(CHANNEL_AGGREGATE, channelId));
    const [row, current] = await this.until(
      () => this.em.fork().findOne(ChannelRow, { channelId }),
      (r) => Number(r?.version ?? 0) >= latest,
    );
    if (!current) await this.reportBehind(channelId, latest, Number(row?.version ?? 0));
    return {
      version: Number(row?.version ?? 0),
      state: (row?.state as unknown as ChannelState | undefined) ?? initialChannelState(channelId),
      current,
    };
  }

  /** A read model this far behind is an outage of its projection: say where it stands. */
  private async reportBehind(channelId: string, latest: number, row: number): Promise<void> {
    const checkpoint = await this.em
      .fork()
      .findOne(ProjectionCheckpoint, { name: Durables.coordinatorProjection });
    this.log.error({
      msg: 'channel read model behind the event store after the wait',
      channelId,
      latest,
      row,
      checkpoint: Number(checkpoint?.lastSeq ?? 0),
      checkpointAt: checkpoint?.updatedAt,
      waitMs: this.waitMs,
    });
  }

  /** The channel's newest timeline events as commits, oldest first. */
  async timeline(channelId: string): Promise<TimelineCommit[]> {
    const rows = await this.em
      .fork()
      .find(
        TurnEventRow,
        { channelId },
        { orderBy: { seq: 'desc', idx: 'desc' }, limit: TIMELINE_EVENTS },
      );
    const commits: (TimelineCommit & { seq: string })[] = [];
    for (const r of rows.reverse()) {
      const event = { type: r.type, data: r.data } as unknown as ChannelEvent;
      const last = commits[commits.length - 1];
      if (last?.seq === r.seq) (last.events as ChannelEvent[]).push(event);
      else commits.push({ seq: r.seq, at: r.at.toISOString(), events: [event] });
    }
    return commits;
  }

  /** Channel ids the coordinator has folded. */
  async channelIds(): Promise<string[]> {
    const rows = await this.em.fork().find(ChannelRow, {}, { fields: ['channelId'] });
    return rows.map((r) => r.channelId);
  }

  /** The identity registry as projected, once the projection holds its latest commit. */
  async identities(): Promise<IdentityEntry[]> {
    const latest = await this.store.version(IDENTITY_SUBJECT);
    await this.until(
      () =>
        this.em
          .fork()
          .findOne(ProjectionCheckpoint, { name: Durables.coordinatorIdentityProjection }),
      (cp) => Number(cp?.lastSeq ?? 0) >= latest,
    );
    const rows = await this.em.fork().find(IdentityRow, {}, { orderBy: { agentId: 'asc' } });
    return rows.map((r) => ({
      discordUserId: r.discordUserId,
      agentId: r.agentId,
      agentName: r.agentName ?? r.agentId,
    }));
  }
}
