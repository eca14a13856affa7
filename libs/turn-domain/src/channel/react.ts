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

type EventType = ChannelEvent['type'];
type EventOf<T extends EventType> = Extract<ChannelEvent, { type: T }>;

/** What one kind of event asks of the service, given the state right after it. */
type Reactor<T extends EventType> = (
  event: EventOf<T>,
  state: ChannelState,
  config: TurnDomainConfig,
) => Effect[];

/** A message as the moderator in the state's channel, or in `target`; none outside a guild. */
function send(
  state: ChannelState,
  purpose: SendPurpose,
  content: string,
  target: { guildId: string | null; channelId: string } = state,
  deleteAfterSend = false,
): Effect[] {
  return target.guildId === null
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
}

/** Arms (or re-arms) the speaker timeout of a turn, when the configuration has one. */
function speakerTimer(state: ChannelState, config: TurnDomainConfig, turnId: string): Effect[] {
  return config.speakerTimeoutMs > 0
    ? [
        {
          kind: 'schedule',
          key: speakerTimerKey(turnId),
          afterMs: config.speakerTimeoutMs,
          channelId: state.channelId,
          command: { type: 'SpeakerTimeout', data: { turnId } },
        },
      ]
    : [];
}

function cancelSpeakerTimer(config: TurnDomainConfig, turnId: string): Effect[] {
  return config.speakerTimeoutMs > 0 ? [{ kind: 'cancel', key: speakerTimerKey(turnId) }] : [];
}

const cancelDeliveryTimer = (turnId: string): Effect => ({
  kind: 'cancel',
  key: deliveryTimerKey(turnId),
});

const nothing = (): Effect[] => [];

/** The speaker's timer, then the grant as a NATS event, a Discord ping, or both. */
const turnGranted: Reactor<'TurnGranted'> = ({ data: d }, state, config) => {
  const { guildId, channelId } = state;
  if (guildId === null) return [];
  const effects: Effect[] = speakerTimer(state, config, d.turnId);
  if (state.wakeMode !== 'discord') {
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
  if (state.wakeMode !== 'granted') {
    const ping = `<@${d.discordUserId}> ${config.scheduleIdentifier}`;
    effects.push(...send(state, 'schedule-identifier', ping, state, true));
  }
  return effects;
};

const deliveryWaitStarted: Reactor<'DeliveryWaitStarted'> = ({ data }, state) => [
  {
    kind: 'schedule',
    key: deliveryTimerKey(data.turnId),
    afterMs: data.timeoutMs,
    channelId: state.channelId,
    command: { type: 'DeliveryTimeout', data: { turnId: data.turnId } },
  },
];

/** `DeliveryConfirmed` and `DeliveryWaitCancelled`: the wait is over. */
const deliveryEnded = ({ data }: { data: { turnId: string } }): Effect[] => [
  cancelDeliveryTimer(data.turnId),
];

/** Both timers go; a timeout or an admin's skip is said in the channel. */
const turnSkipped: Reactor<'TurnSkipped'> = ({ data: d }, state, config) => {
  const effects: Effect[] = [
    cancelDeliveryTimer(d.turnId),
    ...cancelSpeakerTimer(config, d.turnId),
  ];
  if (d.reason === 'speaker-timeout') {
    const notice =
      `${d.agentId} did not answer within ${seconds(config.speakerTimeoutMs)}; ` +
      'passing the turn on.';
    effects.push(...send(state, 'notice', notice));
  } else if (d.reason === 'admin-advance') {
    const by = d.requestedBy ? ` by ${d.requestedBy}` : '';
    effects.push(...send(state, 'notice', `${d.agentId}'s turn was skipped${by}.`));
  }
  return effects;
};

const turnCancelled: Reactor<'TurnCancelled'> = ({ data }, _state, config) =>
  data.phase === 'awaiting-delivery'
    ? [cancelDeliveryTimer(data.turnId)]
    : cancelSpeakerTimer(config, data.turnId);

const turnCompleted: Reactor<'TurnCompleted'> = ({ data }, _state, config) =>
  cancelSpeakerTimer(config, data.turnId);

const deliveryTimedOut: Reactor<'DeliveryTimedOut'> = ({ data }, state) => [
  {
    kind: 'log',
    level: 'warn',
    message: 'delivery not confirmed in time; advancing anyway',
    data: { channelId: state.channelId, ...data },
  },
];

/** A speaker posting while its turn runs is alive: its silence counts anew. */
const messageSeen: Reactor<'MessageSeen'> = ({ data }, state, config) => {
  const turn = state.currentTurn;
  const speakerPosted =
    turn !== null &&
    turn.phase === 'running' &&
    data.tail !== null &&
    data.authorId === turn.discordUserId;
  const alive = speakerPosted ? speakerTimer(state, config, turn.turnId) : [];
  switch (data.reaction) {
    case 'none':
      return alive;
    case 'prompt-marker':
      return [...alive, ...send(state, 'prompt-marker', config.multiMessagePromptMarker)];
    case 'archived-notice': {
      const notice = state.discussion ? config.discussionClosedNotice : config.archivedNotice;
      return send(state, 'archived-notice', notice);
    }
    default:
      return assertNever(data.reaction);
  }
};

const discussionCreated: Reactor<'DiscussionCreated'> = ({ data }, state) =>
  send(state, 'discussion-guide', data.guide);

/** An open discussion's initiator is asked to sum up; a loop breaker pauses the channel. */
const wentDormant: Reactor<'WentDormant'> = ({ data }, state) => {
  const d = state.discussion;
  if (data.reason === 'start') return [];
  if (d?.status === 'open') {
    const initiatorUser =
      d.initiatorDiscordUserId ??
      state.members.find((m) => m.agentId === d.initiatorAgentId)?.discordUserId ??
      null;
    const who = initiatorUser ? `<@${initiatorUser}>` : d.initiatorAgentId;
    const why =
      data.reason === 'loop-breaker'
        ? `${data.cyclesWithoutHuman} rounds ran without a human.`
        : 'Discussion is idle.';
    const reminder = `${who} ${why} Please summarize and call discussion-complete.`;
    return send(state, 'discussion-reminder', reminder);
  }
  if (data.reason !== 'loop-breaker') return [];
  const notice =
    `Pausing: ${data.cyclesWithoutHuman} rounds without a human message. ` +
    'Send a message to continue.';
  return [
    ...send(state, 'notice', notice),
    {
      kind: 'log',
      level: 'info',
      message: 'loop breaker sent the channel dormant',
      data: { channelId: state.channelId, ...data },
    },
  ];
};

/** The summary goes to the channel the discussion was started from. */
const discussionArchived: Reactor<'DiscussionArchived'> = ({ data }, state) => {
  const d = state.discussion;
  if (d === null) return [];
  const summary = data.summary ?? data.summaryPath ?? '';
  const head = `Discussion <#${state.channelId}> is complete. Summary: `;
  return send(state, 'discussion-summary', clip(head + summary, DISCORD_MESSAGE_MAX), {
    guildId: d.callbackGuildId,
    channelId: d.callbackChannelId,
  });
};

const typingHoldStarted: Reactor<'TypingHoldStarted'> = ({ data }, state, config) => [
  {
    kind: 'schedule',
    key: typingHoldTimerKey(state.channelId),
    afterMs: config.typingHoldMs,
    channelId: state.channelId,
    command: { type: 'TypingHoldExpired', data: { until: data.until } },
  },
];

const typingHoldEnded: Reactor<'TypingHoldEnded'> = (_event, state) => [
  { kind: 'cancel', key: typingHoldTimerKey(state.channelId) },
];

/**
 * One reactor per event type. The mapped type is the exhaustiveness check: a new event type
 * without an entry here does not compile.
 */
const REACTORS: { readonly [T in EventType]: Reactor<T> } = {
  TurnGranted: turnGranted,
  DeliveryWaitStarted: deliveryWaitStarted,
  DeliveryConfirmed: deliveryEnded,
  DeliveryWaitCancelled: deliveryEnded,
  TurnSkipped: turnSkipped,
  TurnCancelled: turnCancelled,
  TurnCompleted: turnCompleted,
  DeliveryTimedOut: deliveryTimedOut,
  MessageSeen: messageSeen,
  DiscussionCreated: discussionCreated,
  WentDormant: wentDormant,
  DiscussionArchived: discussionArchived,
  TypingHoldStarted: typingHoldStarted,
  TypingHoldEnded: typingHoldEnded,
  GrantHeld: nothing,
  ChannelCreated: nothing,
  ModeSet: nothing,
  ShuffleOverrideSet: nothing,
  WakeModeSet: nothing,
  MembersRefreshed: nothing,
  SpeakerListRebuilt: nothing,
  TurnAnchorRecorded: nothing,
  CycleCompleted: nothing,
  Woke: nothing,
  MultiMessageStarted: nothing,
  MultiMessageEnded: nothing,
};

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
  const react = REACTORS[event.type] as Reactor<EventType>;
  return react(event, stateAfter, config);
}
