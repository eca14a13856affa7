import type { ChannelState } from './types';

/**
 * The version of {@link ChannelState}'s shape and of what `evolveChannel` folds into it.
 * Bump it with any change to either: a stored snapshot of another schema is not used (the
 * channel is replayed from its events). `snapshot.unit.spec.ts` pins a fingerprint of both
 * and fails until it is bumped.
 */
export const CHANNEL_STATE_SCHEMA = 1;

const KEYS: readonly (keyof ChannelState)[] = [
  'channelId',
  'guildId',
  'known',
  'mode',
  'tmState',
  'shuffleOverride',
  'wakeMode',
  'members',
  'speakers',
  'cycle',
  'position',
  'turnSeq',
  'currentTurn',
  'dormant',
  'dormantReason',
  'cycleOutcomes',
  'lastSpeakerAgentId',
  'humanSeenThisCycle',
  'cyclesWithoutHuman',
  'multiMessage',
  'lastMessageId',
  'recentRunIds',
  'discussion',
  'lastArchivedNoticeAt',
  'typingHold',
  'heldGrant',
];

/** Whether a decoded snapshot state looks like channel `channelId`'s state (every field there). */
export function isChannelState(value: unknown, channelId: string): value is ChannelState {
  if (!value || typeof value !== 'object') return false;
  const s = value as Record<string, unknown>;
  return s.channelId === channelId && KEYS.every((k) => k in s);
}

/** The fields a channel state has, in order (for the schema fingerprint). */
export const CHANNEL_STATE_KEYS = KEYS;
