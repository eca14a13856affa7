import { readFile } from 'node:fs/promises';
import {
  Streams,
  Subjects,
  envelope,
  isEnvelope,
  type DeadLetterRecord,
  type GuildInfo,
  type GuildsResult,
  type IdentityEntry,
  type ProposalView,
  type Reply,
} from '@dirigent/contracts';
import type { Messaging } from '@dirigent/messaging';
import {
  describeChannel,
  initialChannelState,
  parseEgoJson,
  type ChannelView,
} from '@dirigent/turn-domain';
import type { ChannelReadModel } from './read-model';
import { buildTimeline, type TimelineItem } from './timeline';

export { CHANNEL_AGGREGATE, IDENTITY_AGGREGATE } from './read-model';

/** A channel as the page shows it: Discord's name, the coordinator's view, its timeline. */
export interface ChannelInfo {
  channelId: string;
  guildId: string;
  name: string;
  private: boolean;
  /** Whether the coordinator has any event for it (unknown channels show `none`). */
  known: boolean;
  view: ChannelView;
  timeline: TimelineItem[];
}

export interface GuildView {
  guildId: string;
  name: string;
  channels: ChannelInfo[];
}

export interface GuildsView {
  guilds: GuildView[];
  /** Set when the Discord ingest did not answer: only channels Dirigent knows are listed. */
  discordError: string | null;
}

export type DeadLetter = DeadLetterRecord & { seq: number };

/** A reply that failed, carried to the HTTP layer with its code. */
export class ReplyFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/**
 * What the control page reads and does: channel views, timelines and the identity
 * registry from the coordinator's read model in Postgres ({@link ChannelReadModel}); the
 * coordinator's admin subjects for changes; the Discord ingest's guild query; the
 * dead-letter stream.
 */
export class ControlData {
  constructor(
    private readonly messaging: Messaging,
    private readonly reads: ChannelReadModel,
    private readonly opts: { egoFile?: string; requestTimeoutMs?: number } = {},
  ) {}

  private async call<T>(subj: string, data: unknown): Promise<T> {
    const reply: Reply<T> = await this.messaging.request<T>(
      subj,
      data,
      this.opts.requestTimeoutMs ?? 5000,
    );
    if (!reply.ok)
      throw new ReplyFailure(reply.error.code, reply.error.message, reply.error.details);
    return reply.data;
  }

  identities(): Promise<IdentityEntry[]> {
    return this.reads.identities();
  }

  upsertIdentity(e: { discordUserId: string; agentId: string; agentName?: string }) {
    return this.call<IdentityEntry>(Subjects.admin.identityUpsert, e);
  }

  removeIdentity(discordUserId: string) {
    return this.call<{ removed: IdentityEntry | null }>(Subjects.admin.identityRemove, {
      discordUserId,
    });
  }

  rescan() {
    return this.call<{ imported: number }>(Subjects.admin.identityRescan, {
      source: 'padded-cell',
    });
  }

  /** padded-cell is detected when its `ego.json` exists and has the `discord-id` column. */
  async egoDetected(): Promise<boolean> {
    if (!this.opts.egoFile) return false;
    try {
      return parseEgoJson(JSON.parse(await readFile(this.opts.egoFile, 'utf8'))).present;
    } catch {
      return false;
    }
  }

  setMode(guildId: string, channelId: string, mode: string) {
    return this.call(Subjects.admin.channelSetMode, { guildId, channelId, mode });
  }

  setShuffle(guildId: string, channelId: string, shuffle: boolean | null) {
    return this.call(Subjects.admin.channelSetShuffle, { guildId, channelId, shuffle });
  }

  setWakeMode(guildId: string, channelId: string, wakeMode: string) {
    return this.call(Subjects.admin.channelSetWakeMode, { guildId, channelId, wakeMode });
  }

  /** A guild's proposals, newest first (`Subjects.steward.proposalsList`). */
  proposals(guildId: string, status?: string) {
    return this.call<{ proposals: ProposalView[] }>(Subjects.steward.proposalsList, {
      guildId,
      ...(status ? { status } : {}),
    });
  }

  /**
   * Approves or rejects a proposal as `actorUserId`, the admin of the page's session (the
   * router still requires ManageGuild of that member in the proposal's guild).
   */
  decideProposal(proposalId: string, approve: boolean, actorUserId: string) {
    return this.call<ProposalView>(Subjects.admin.stewardDecide, {
      proposalId,
      approve,
      actorUserId,
    });
  }

  /** Skips the channel's current speaker (a stalled or absent agent). */
  advance(guildId: string, channelId: string) {
    return this.call(Subjects.admin.channelAdvance, {
      guildId,
      channelId,
      requestedBy: 'the control page',
    });
  }

  /** Channel ids the coordinator has folded. */
  knownChannelIds(): Promise<string[]> {
    return this.reads.channelIds();
  }

  /** One channel as projected, with its timeline; an unknown one is not looked up. */
  async channel(channelId: string, known = true): Promise<Omit<ChannelInfo, 'name' | 'private'>> {
    const read = known
      ? await this.reads.channel(channelId)
      : { version: 0, state: initialChannelState(channelId) };
    const view = describeChannel(read.state);
    return {
      channelId,
      guildId: view.guildId ?? '',
      known: read.version > 0,
      view,
      timeline: read.version > 0 ? buildTimeline(await this.reads.timeline(channelId)) : [],
    };
  }

  /** Every guild the moderator bot is in with every text channel, plus any channel only Dirigent knows. */
  async guilds(): Promise<GuildsView> {
    let discord: GuildInfo[] = [];
    let discordError: string | null = null;
    try {
      discord = (await this.call<GuildsResult>(Subjects.discord.queryGuilds, {})).guilds;
    } catch (e) {
      discordError = (e as Error).message;
    }
    const known = new Set(await this.knownChannelIds());
    const guilds: GuildView[] = [];
    const listed = new Set<string>();
    for (const g of discord) {
      const channels = await Promise.all(
        g.channels.map(async (c) => {
          listed.add(c.channelId);
          const folded = await this.channel(c.channelId, known.has(c.channelId));
          return { ...folded, guildId: g.guildId, name: c.name, private: c.private };
        }),
      );
      guilds.push({ guildId: g.guildId, name: g.name, channels });
    }
    const others = [...known].filter((id) => !listed.has(id));
    if (others.length && discordError) {
      const extra = await Promise.all(others.map((id) => this.channel(id)));
      const byGuild = new Map<string, GuildView>();
      for (const c of extra) {
        const gid = c.guildId || 'unknown';
        const g = byGuild.get(gid) ?? { guildId: gid, name: `guild ${gid}`, channels: [] };
        g.channels.push({ ...c, name: `#${c.channelId}`, private: false });
        byGuild.set(gid, g);
      }
      guilds.push(...byGuild.values());
    }
    return { guilds, discordError };
  }

  deadLetters(limit = 50): Promise<DeadLetter[]> {
    return this.messaging.listDeadLetters(limit);
  }

  /** Deletes dead letter `seq` from DIRIGENT_DEADLETTER for good (nothing is re-driven). */
  async discardDeadLetter(seq: number): Promise<{ discarded: number }> {
    const deleted = await this.messaging.client.jsm.streams
      .deleteMessage(Streams.deadLetter, seq)
      .catch(() => false);
    if (!deleted) throw new ReplyFailure('NOT_FOUND', `no dead letter #${seq}`);
    return { discarded: seq };
  }

  /**
   * Publishes a dead letter's original payload to its subject again, under a new message
   * id (the old one would be de-duplicated). Returns the new id.
   */
  async redrive(seq: number): Promise<{ subject: string; id: string }> {
    const sm = await this.messaging.client.jsm.streams
      .getMessage(Streams.deadLetter, { seq })
      .catch(() => null);
    if (!sm) throw new ReplyFailure('NOT_FOUND', `no dead letter #${seq}`);
    const record = sm.json<{ data: DeadLetterRecord }>().data;
    let original: unknown;
    try {
      original = JSON.parse(record.payload);
    } catch {
      original = undefined;
    }
    if (isEnvelope(original)) {
      const again = envelope(original.type, this.messaging.source, original.data, {
        correlationId: original.correlationId ?? original.id,
        causationId: original.id,
      });
      await this.messaging.publish(record.subject, again);
      return { subject: record.subject, id: again.id };
    }
    const id = `redrive:${seq}:${Date.now()}`;
    await this.messaging.client.js.publish(record.subject, record.payload, { msgID: id });
    return { subject: record.subject, id };
  }
}
