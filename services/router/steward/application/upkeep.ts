import { Inject, Injectable, Logger } from '@nestjs/common';
import { MessageCreated } from '@dirigent/contracts';
import { declareJob, all, event, predicate, type DeclaredJob } from '@dirigent/reactor';
import {
  DEFAULT_DECISION,
  DEFAULT_TOPIC_SPLIT,
  decisionReached,
  topicSplit,
  type DecisionReached,
  type TopicSplit,
  type UpkeepMessage,
} from '@dirigent/router-domain';
import { Clock, SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../../config';
import { ChannelActivity } from '../../application/channel-activity';
import { RecentTalk } from '../../application/recent-talk';
import { ModChannels } from './mod-channels';
import { ProposalService } from './proposals';
import { RequestProposal } from './request-proposal';

/** The longest look back of the upkeep predicates. */
const WINDOW_MS = Math.max(DEFAULT_TOPIC_SPLIT.windowMs, DEFAULT_DECISION.windowMs);

interface Snapshot {
  split?: TopicSplit;
  decision?: DecisionReached;
  modChannel: boolean;
}

/**
 * Steward upkeep as reactor jobs on state predicates, never on a clock grid, proposing
 * within the guild's pending limit (`RequestProposal`):
 * `steward-thread-split` — on a human message, when the channel's recent talk (what the
 * router has seen of it) has split into two topics or more, propose a thread for the side
 * topic, starting at its first message. The proposal id is the channel's and the day's, so
 * a split is proposed once a day, whatever restarts do and whatever the topic is called when
 * the job runs.
 * `steward-pin-decision` — on a human message, when an archive-worthy decision has been
 * reached (stated, then agreed to by two other members), propose pinning it, once.
 * The talk they read is what the router has seen, joined the first time this process sees
 * a channel by what the durable Discord stream holds of its last `WINDOW_MS` (read with the
 * room's, `RecentTalk`): a restart forgets nothing of a talk that began before it (or went
 * on while the router was down).
 */
@Injectable()
export class StewardUpkeep {
  private readonly log = new Logger('router:steward');
  /** Per channel: its talk from before this process saw it, read once from the stream. */
  private readonly earlier = new Map<string, Promise<UpkeepMessage[]>>();

  constructor(
    private readonly activity: ChannelActivity,
    private readonly recentTalk: RecentTalk,
    private readonly proposals: ProposalService,
    private readonly requests: RequestProposal,
    private readonly modChannels: ModChannels,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
  ) {}

  /**
   * The reactor jobs `steward-thread-split`, `steward-pin-decision` (registered from the
   * service's `reactor-jobs.ts`).
   */
  jobs(): DeclaredJob[] {
    return [
      declareJob<MessageCreated, Snapshot>({
        name: 'steward-thread-split',
        trigger: all<Snapshot>(
          event({ type: 'message.created' }),
          predicate('not-the-mod-channel', (s) => !s.modChannel),
          predicate('talk-split-into-topics', (s) => s.split !== undefined),
        ),
        parse: MessageCreated.create,
        lane: (m) => `steward:${m.channelId}`,
        snapshot: (m) => this.snapshot(m),
        run: (m, { snapshot }) => this.proposeThread(m, snapshot.split!),
      }),
      declareJob<MessageCreated, Snapshot>({
        name: 'steward-pin-decision',
        trigger: all<Snapshot>(
          event({ type: 'message.created' }),
          predicate('not-the-mod-channel', (s) => !s.modChannel),
          predicate('decision-reached', (s) => s.decision !== undefined),
        ),
        parse: MessageCreated.create,
        lane: (m) => `steward:${m.channelId}`,
        snapshot: (m) => this.snapshot(m),
        run: (m, { snapshot }) => this.proposePin(m, snapshot.decision!),
      }),
    ];
  }

  private async snapshot(m: MessageCreated): Promise<Snapshot> {
    if (m.authorIsBot) return { modChannel: false };
    const now = this.clock.now();
    const recent = await this.talk(m.guildId, m.channelId, now);
    return {
      modChannel: await this.modChannels.isModChannel(m.guildId, m.channelId),
      split: topicSplit(recent, now, DEFAULT_TOPIC_SPLIT),
      decision: decisionReached(recent, now, DEFAULT_DECISION),
    };
  }

  /** The channel's recent talk, oldest first: the durable stream's, then what was seen since. */
  private async talk(guildId: string, channelId: string, now: number): Promise<UpkeepMessage[]> {
    let earlier = this.earlier.get(channelId);
    if (!earlier) {
      earlier = this.recentTalk.messages(guildId, channelId).catch((err: Error) => {
        this.log.warn({ channelId, err: err.message }, 'channel history unread');
        this.earlier.delete(channelId);
        return [];
      });
      this.earlier.set(channelId, earlier);
    }
    const seen = this.activity.get(channelId).recent;
    const ids = new Set(seen.map((x) => x.messageId));
    const older = (await earlier).filter((x) => !ids.has(x.messageId) && now - x.at <= WINDOW_MS);
    // Once out of the window, what was read is dropped: what the router sees takes over.
    if (!older.length) this.earlier.set(channelId, Promise.resolve([]));
    return [...older, ...seen].sort((a, b) => a.at - b.at);
  }

  /** Upkeep proposes within the guild's pending limit too: the moderators are not flooded. */
  private async full(m: MessageCreated, what: string): Promise<boolean> {
    const refused = await this.requests.refusal(m.guildId);
    if (refused) this.log.log({ channelId: m.channelId, refused }, `${what} not proposed`);
    return refused !== undefined;
  }

  private async proposeThread(m: MessageCreated, split: TopicSplit) {
    if (await this.full(m, 'thread')) return;
    // One proposal per channel and day: the side topic's first message and its most frequent
    // word move as the talk goes on (runs a message apart named the same split "ramen" and
    // "broth"), so neither can tell a split already proposed.
    const day = new Date(this.clock.now()).toISOString().slice(0, 10).replace(/-/g, '');
    const { proposalId } = await this.proposals.propose({
      proposalId: `thread-${m.channelId}-${day}`,
      guildId: m.guildId,
      channelId: m.channelId,
      skillId: 'create_thread',
      tool: 'create_thread',
      args: { channelId: m.channelId, name: split.topic.slice(0, 100), messageId: split.messageId },
      reason: `The talk here split into ${split.topics.length} topics; "${split.topic}" (${split.size} messages) could have its own thread.`,
      requestedBy: { agentId: this.config.file.agents[0].id },
    });
    this.log.log({ proposalId, channelId: m.channelId, topic: split.topic }, 'thread proposed');
  }

  private async proposePin(m: MessageCreated, d: DecisionReached) {
    if (await this.full(m, 'pin')) return;
    const { proposalId } = await this.proposals.propose({
      proposalId: `pin-${m.channelId}-${d.messageId}`,
      guildId: m.guildId,
      channelId: m.channelId,
      skillId: 'pin_moment',
      tool: 'pin_moment',
      args: { channelId: m.channelId, messageId: d.messageId },
      reason: `A decision was reached and ${d.agreed} members agreed: "${d.text}"`,
      requestedBy: { agentId: this.config.file.agents[0].id },
    });
    this.log.log({ proposalId, channelId: m.channelId }, 'pin proposed');
  }
}
