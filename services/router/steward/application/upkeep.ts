import { Inject, Injectable, Logger } from '@nestjs/common';
import { MessageCreated } from '@dirigent/contracts';
import { all, event, predicate, Reactor } from '@dirigent/reactor';
import {
  DEFAULT_DECISION,
  DEFAULT_TOPIC_SPLIT,
  decisionReached,
  topicSplit,
  type DecisionReached,
  type TopicSplit,
} from '@dirigent/router-domain';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../../config';
import { ChannelActivity } from '../../application/channel-activity';
import { Clock } from '../../application/ports';
import { ModChannels } from './mod-channels';
import { ProposalService } from './proposals';

interface Snapshot {
  split?: TopicSplit;
  decision?: DecisionReached;
  modChannel: boolean;
}

/**
 * Steward upkeep as reactor jobs on state predicates, never on a clock grid:
 * `steward-thread-split` — on a human message, when the channel's recent talk (what the
 * router has seen of it) has split into two topics or more, propose a thread for the side
 * topic, starting at its first message. The proposal id is the channel's and that message's,
 * so the same split is proposed once, whatever restarts do.
 * `steward-pin-decision` — on a human message, when an archive-worthy decision has been
 * reached (stated, then agreed to by two other members), propose pinning it, once.
 */
@Injectable()
export class StewardUpkeep {
  private readonly log = new Logger('router:steward');

  constructor(
    reactor: Reactor,
    private readonly activity: ChannelActivity,
    private readonly proposals: ProposalService,
    private readonly modChannels: ModChannels,
    private readonly clock: Clock,
    @Inject(SERVICE_CONFIG) private readonly config: RouterConfig,
  ) {
    reactor.job<MessageCreated, Snapshot>({
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
    });
    reactor.job<MessageCreated, Snapshot>({
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
    });
  }

  private async snapshot(m: MessageCreated): Promise<Snapshot> {
    if (m.authorIsBot) return { modChannel: false };
    const recent = this.activity.get(m.channelId).recent;
    const now = this.clock.now();
    return {
      modChannel: await this.modChannels.isModChannel(m.guildId, m.channelId),
      split: topicSplit(recent, now, DEFAULT_TOPIC_SPLIT),
      decision: decisionReached(recent, now, DEFAULT_DECISION),
    };
  }

  private async proposeThread(m: MessageCreated, split: TopicSplit) {
    const { proposalId } = await this.proposals.propose({
      proposalId: `thread-${m.channelId}-${split.messageId}`,
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
