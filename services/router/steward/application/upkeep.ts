import { Inject, Injectable, Logger } from '@nestjs/common';
import { MessageCreated } from '@dirigent/contracts';
import { all, event, predicate, Reactor } from '@dirigent/reactor';
import { DEFAULT_TOPIC_SPLIT, topicSplit, type TopicSplit } from '@dirigent/router-domain';
import { SERVICE_CONFIG } from '@dirigent/service-kit';
import type { RouterConfig } from '../../config';
import { ChannelActivity } from '../../application/channel-activity';
import { Clock } from '../../application/ports';
import { ModChannels } from './mod-channels';
import { ProposalService } from './proposals';

interface Snapshot {
  split?: TopicSplit;
  modChannel: boolean;
}

/**
 * Steward upkeep as reactor jobs on state predicates, never on a clock grid:
 * `steward-thread-split` — on a human message, when the channel's recent talk (what the
 * router has seen of it) has split into two topics or more, propose a thread for the side
 * topic, starting at its first message. The proposal id is the channel's and that message's,
 * so the same split is proposed once, whatever restarts do.
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
  }

  private async snapshot(m: MessageCreated): Promise<Snapshot> {
    if (m.authorIsBot) return { modChannel: false };
    const recent = this.activity.get(m.channelId).recent;
    return {
      modChannel: await this.modChannels.isModChannel(m.guildId, m.channelId),
      split: topicSplit(recent, this.clock.now(), DEFAULT_TOPIC_SPLIT),
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
}
