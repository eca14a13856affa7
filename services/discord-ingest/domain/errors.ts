/** What went wrong with a Discord call, free of discord.js types. */
export interface DiscordFailure {
  /** HTTP status, when Discord answered. */
  status?: number;
  /** Discord's JSON error code (10003 Unknown Channel, 50001 Missing Access, …). */
  code?: number;
}

export const DiscordCodes = {
  UnknownChannel: 10003,
  UnknownGuild: 10004,
  UnknownMessage: 10008,
  UnknownWebhook: 10015,
  MissingAccess: 50001,
  MissingPermissions: 50013,
} as const;

export type FailureClass = 'permanent' | 'transient' | 'already-done';

/**
 * Decides whether retrying a failed Discord call can help: 5xx, 408, 429 and network errors
 * are transient; other 4xx (missing access, unknown channel, invalid body) are permanent.
 * Deleting a message that is already gone is done.
 */
export function classifyFailure(f: DiscordFailure, op: 'send' | 'delete' | 'other'): FailureClass {
  if (op === 'delete' && f.code === DiscordCodes.UnknownMessage) return 'already-done';
  if (f.status === undefined) return 'transient';
  if (f.status >= 500 || f.status === 408 || f.status === 429) return 'transient';
  if (f.status >= 400) return 'permanent';
  return 'transient';
}
