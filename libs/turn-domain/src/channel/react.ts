import { assertNever } from '../shared/result';
import type { TimerCommand } from './commands';
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
  readonly command: TimerCommand;
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

/** The durable-timer key of a turn's speaker timeout (re-armed when the speaker posts). */
export const speakerTimerKey = (turnId: string): string => `speaker-timeout:${turnId}`;

/** The durable-timer key of a channel's typing hold (one per channel). */
export const typingHoldTimerKey = (channelId: string): string => `typing-hold:${channelId}`;

const DISCORD_MESSAGE_MAX = 2000;
const clip = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

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

  const speakerTimer = (turnId: string): Effect[] =>
    config.speakerTimeoutMs > 0
      ? [
          {
            kind: 'schedule',
            key: speakerTimerKey(turnId),
            afterMs: config.speakerTimeoutMs,
            channelId,
            command: { type: 'SpeakerTimeout', data: { turnId } },
          },
        ]
      : [];
  const cancelSpeakerTimer = (turnId: string): Effect[] =>
    config.speakerTimeoutMs > 0 ? [{ kind: 'cancel', key: speakerTimerKey(turnId) }] : [];

  switch (event.type) {
    case 'TurnGranted': {
      const d = event.data;
      if (guildId === null) return [];
      const effects: Effect[] = [...speakerTimer(d.turnId)];
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
      return [{ kind: 'cancel', key: deliveryTimerKey(event.data.turnId) }];
    case 'TurnSkipped': {
      const d = event.data;
      const effects: Effect[] = [
        { kind: 'cancel', key: deliveryTimerKey(d.turnId) },
        ...cancelSpeakerTimer(d.turnId),
      ];
      if (d.reason === 'speaker-timeout') {
        effects.push(
          ...send(
            'notice',
            `${d.agentId} did not answer within ${seconds(config.speakerTimeoutMs)}; ` +
              'passing the turn on.',
          ),
        );
      } else if (d.reason === 'admin-advance') {
        const by = d.requestedBy ? ` by ${d.requestedBy}` : '';
        effects.push(...send('notice', `${d.agentId}'s turn was skipped${by}.`));
      }
      return effects;
    }
    case 'TurnCancelled':
      return event.data.phase === 'awaiting-delivery'
        ? [{ kind: 'cancel', key: deliveryTimerKey(event.data.turnId) }]
        : cancelSpeakerTimer(event.data.turnId);
    case 'TurnCompleted':
      return cancelSpeakerTimer(event.data.turnId);
    case 'DeliveryTimedOut':
      return [
        {
          kind: 'log',
          level: 'warn',
          message: 'delivery not confirmed in time; advancing anyway',
          data: { channelId, ...event.data },
        },
      ];
    case 'MessageSeen': {
      // The speaker posted while its turn runs: it is alive, so its silence counts anew.
      const turn = stateAfter.currentTurn;
      const speakerPosted =
        turn !== null &&
        turn.phase === 'running' &&
        event.data.tail !== null &&
        event.data.authorId === turn.discordUserId;
      const alive = speakerPosted ? speakerTimer(turn.turnId) : [];
      switch (event.data.reaction) {
        case 'none':
          return alive;
        case 'prompt-marker':
          return [...alive, ...send('prompt-marker', config.multiMessagePromptMarker)];
        case 'archived-notice':
          return send(
            'archived-notice',
            stateAfter.discussion ? config.discussionClosedNotice : config.archivedNotice,
          );
        default:
          return assertNever(event.data.reaction);
      }
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
        const why =
          event.data.reason === 'loop-breaker'
            ? `${event.data.cyclesWithoutHuman} rounds ran without a human.`
            : 'Discussion is idle.';
        return send(
          'discussion-reminder',
          `${who} ${why} Please summarize and call discussion-complete.`,
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
      const summary = event.data.summary ?? event.data.summaryPath ?? '';
      const head = `Discussion <#${channelId}> is complete. Summary: `;
      return send('discussion-summary', clip(head + summary, DISCORD_MESSAGE_MAX), {
        guildId: d.callbackGuildId,
        channelId: d.callbackChannelId,
      });
    }
    case 'TypingHoldStarted':
      return [
        {
          kind: 'schedule',
          key: typingHoldTimerKey(channelId),
          afterMs: config.typingHoldMs,
          channelId,
          command: { type: 'TypingHoldExpired', data: { until: event.data.until } },
        },
      ];
    case 'TypingHoldEnded':
      return [{ kind: 'cancel', key: typingHoldTimerKey(channelId) }];
    case 'GrantHeld':
      return [];
    case 'ChannelCreated':
    case 'ModeSet':
    case 'ShuffleOverrideSet':
    case 'WakeModeSet':
    case 'MembersRefreshed':
    case 'SpeakerListRebuilt':
    case 'TurnAnchorRecorded':
    case 'CycleCompleted':
    case 'Woke':
    case 'MultiMessageStarted':
    case 'MultiMessageEnded':
      return [];
    default:
      return assertNever(event);
  }
}
