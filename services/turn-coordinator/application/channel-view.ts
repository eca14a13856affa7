import type { ChannelView as WireChannelView } from '@dirigent/contracts';
import { describeChannel, type ChannelState } from '@dirigent/turn-domain';

/** `channel.get` reply: the public ChannelView plus the coordinator's extra detail. */
export type ChannelViewReply = Omit<WireChannelView, 'discussion'> & {
  discussion?: NonNullable<WireChannelView['discussion']> & { participants: string[] };
} & Record<string, unknown>;

export function channelView(state: ChannelState): ChannelViewReply {
  const v = describeChannel(state);
  const d = v.discussion;
  return {
    mode: v.mode,
    tmState: v.tmState,
    currentSpeaker: v.currentSpeaker,
    speakers: v.speakers,
    dormant: v.dormant,
    multiMessage: v.multiMessage,
    shuffle: v.shuffle,
    ...(d
      ? {
          discussion: {
            initiatorAgentId: d.initiatorAgentId,
            callbackGuildId: d.callbackGuildId,
            callbackChannelId: d.callbackChannelId,
            archived: d.status === 'archived',
            participants: d.participants,
            ...(d.summaryPath ? { summaryPath: d.summaryPath } : {}),
          },
        }
      : {}),
    channelId: v.channelId,
    guildId: v.guildId,
    cycle: v.cycle,
    turnId: v.turnId,
    awaitingDelivery: v.awaitingDelivery,
    dormantReason: v.dormantReason,
    wakeMode: v.wakeMode,
    members: v.members,
  };
}
