import { assertNever } from '../shared/result';
import type { DeliveryTimeout } from './commands';
import type { ChannelEvent } from './events';
import type { ChannelState, GrantReason, TurnDomainConfig } from './types';
import { DEFAULT_TURN_CONFIG } from './types';

export type SendPurpose =
  | 'schedule-identifier'
  | 'prompt-marker'
  | 'archived-notice'
  | 'discussion-guide'
  | 'discussion-reminder'
  | 'discussion-summary'
  | 'notice';

/** Publish the grant (`subject.turnGranted(channelId)`); use `turnId` as the `Nats-Msg-Id`. */
export interface PublishGrantedEffect {
  readonly kind: 'publish-granted';
  readonly guildId: string;
  readonly channelId: string;
  readonly agentId: string;
  readonly turnId: string;
  readonly cycle: number;
  readonly reason: GrantReason;
}

/** Send a message as the moderator (`Subjects.discord.cmdSendMessage`). */
export interface SendMessageEffect {
  readonly kind: 'send-message';
  readonly purpose: SendPurpose;
  readonly guildId: string;
  readonly channelId: string;
  readonly content: string;
  readonly deleteAfterSend: boolean;
}

/** Arm a durable timer; when it fires, run `command` against channel `channelId`. */
export interface ScheduleEffect {
  readonly kind: 'schedule';
  readonly key: string;
  readonly afterMs: number;
  readonly channelId: string;
  readonly command: DeliveryTimeout;
}

/** Disarm the durable timer `key` (no-op when it already fired or never existed). */
export interface CancelEffect {
  readonly kind: 'cancel';
  readonly key: string;
}

export interface LogEffect {
  readonly kind: 'log';
  readonly level: 'info' | 'warn';
  readonly message: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export type Effect =
  | PublishGrantedEffect
  | SendMessageEffect
  | ScheduleEffect
  | CancelEffect
  | LogEffect;

/** The durable-timer key of a turn's delivery timeout. */
export const deliveryTimerKey = (turnId: string): string => `delivery-timeout:${turnId}`;

/**
 * The process manager of the turn hand-off: what the service must do, outside the
 * aggregate, because an event happened. Run it once per newly appended event (never on
 * replay), with the state right after that event.
 *
 * @example
 * let state = before;
 * for (const event of decision.events) {
 *   state = evolveChannel(state, event);
 *   for (const effect of reactToChannelEvent(event, state, config)) await perform(effect);
 * }
 */
export function reactToChannelEvent(
  event: ChannelEvent,
  stateAfter: ChannelState,
  config: TurnDomainConfig = DEFAULT_TURN_CONFIG,
): Effect[] {
  const channelId = stateAfter.channelId;
  const guildId = stateAfter.guildId;
  const send = (
    purpose: SendPurpose,
    content: string,
    target: { guildId: string | null; channelId: string } = { guildId, channelId },
    deleteAfterSend = false,
  ): Effect[] =>
    target.guildId === null
      ? []
      : [
          {
            kind: 'send-message',
            purpose,
            guildId: target.guildId,
            channelId: target.channelId,
            content,
            deleteAfterSend,
          },
        ];

  switch (event.type) {
    case 'TurnGranted': {
      const d = event.data;
      if (guildId === null) return [];
      const effects: Effect[] = [];
      if (stateAfter.wakeMode !== 'discord') {
        effects.push({
          kind: 'publish-granted',
          guildId,
          channelId,
          agentId: d.agentId,
          turnId: d.turnId,
          cycle: d.cycle,
          reason: d.reason,
        });
      }
      if (stateAfter.wakeMode !== 'granted') {
        effects.push(
          ...send(
            'schedule-identifier',
            `<@${d.discordUserId}> ${config.scheduleIdentifier}`,
            undefined,
            true,
          ),
        );
      }
      return effects;
    }
    case 'DeliveryWaitStarted':
      return [
        {
          kind: 'schedule',
          key: deliveryTimerKey(event.data.turnId),
          afterMs: event.data.timeoutMs,
          channelId,
          command: { type: 'DeliveryTimeout', data: { turnId: event.data.turnId } },
        },
      ];
    case 'DeliveryConfirmed':
    case 'DeliveryWaitCancelled':
    case 'TurnSkipped':
      return [{ kind: 'cancel', key: deliveryTimerKey(event.data.turnId) }];
    case 'TurnCancelled':
      return event.data.phase === 'awaiting-delivery'
        ? [{ kind: 'cancel', key: deliveryTimerKey(event.data.turnId) }]
        : [];
    case 'DeliveryTimedOut':
      return [
        {
          kind: 'log',
          level: 'warn',
          message: 'delivery not confirmed in time; advancing anyway',
          data: { channelId, ...event.data },
        },
      ];
    case 'MessageSeen':
      switch (event.data.reaction) {
        case 'none':
          return [];
        case 'prompt-marker':
          return send('prompt-marker', config.multiMessagePromptMarker);
        case 'archived-notice':
          return send(
            'archived-notice',
            stateAfter.discussion ? config.discussionClosedNotice : config.archivedNotice,
          );
        default:
          return assertNever(event.data.reaction);
      }
    case 'DiscussionCreated':
      return send('discussion-guide', event.data.guide);
    case 'WentDormant': {
      const d = stateAfter.discussion;
      if (event.data.reason === 'start') return [];
      if (d?.status === 'open') {
        const initiatorUser =
          d.initiatorDiscordUserId ??
          stateAfter.members.find((m) => m.agentId === d.initiatorAgentId)?.discordUserId ??
          null;
        const who = initiatorUser ? `<@${initiatorUser}>` : d.initiatorAgentId;
        return send(
          'discussion-reminder',
          `${who} Discussion is idle. Please summarize and call discussion-complete.`,
        );
      }
      if (event.data.reason === 'loop-breaker') {
        return [
          ...send(
            'notice',
            `Pausing: ${event.data.cyclesWithoutHuman} rounds without a human message. ` +
              'Send a message to continue.',
          ),
          {
            kind: 'log',
            level: 'info',
            message: 'loop breaker sent the channel dormant',
            data: { channelId, ...event.data },
          },
        ];
      }
      return [];
    }
    case 'DiscussionArchived': {
      const d = stateAfter.discussion;
      if (d === null) return [];
      return send(
        'discussion-summary',
        `Discussion <#${channelId}> is complete. Summary: ${event.data.summaryPath}`,
        { guildId: d.callbackGuildId, channelId: d.callbackChannelId },
      );
    }
    case 'ChannelCreated':
    case 'ModeSet':
    case 'ShuffleOverrideSet':
    case 'WakeModeSet':
    case 'MembersRefreshed':
    case 'SpeakerListRebuilt':
    case 'TurnAnchorRecorded':
    case 'TurnCompleted':
    case 'CycleCompleted':
    case 'Woke':
    case 'MultiMessageStarted':
    case 'MultiMessageEnded':
      return [];
    default:
      return assertNever(event);
  }
}
