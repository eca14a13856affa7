import type { DiscordActions } from './types';

/**
 * Where the outcomes of a call's Discord writes are kept across restarts (a NATS KV bucket in
 * the router). A value is what the write returned, or {@link PENDING} while it is under way.
 */
export interface EffectJournal {
  get(key: string): Promise<{ value: unknown } | undefined>;
  put(key: string, value: unknown): Promise<void>;
}

/** The journal's mark of a write that was started and has not been seen to finish. */
export const PENDING = '__pending__';

/**
 * The Discord port of one call with its writes journaled under `<callId>.<n>.<write>`: a re-run
 * of the call (a redelivery after a SIGKILL, an approval executed again) gets each write the
 * earlier run finished back from the journal instead of doing it again. A write the earlier
 * run started but was not seen to finish is done again, idempotently: a channel is looked for
 * by its name first (`adoptExisting`); posts carry their de-duplicating id; the others are
 * idempotent at Discord. A skill's writes come one after another in an order its arguments
 * decide, so the n-th write of a re-run is the n-th write of the earlier run.
 *
 * @example
 * const discord = journaled(ports.discord, journal, `proposal-${proposalId}`);
 */
export function journaled(
  discord: DiscordActions,
  journal: EffectJournal,
  callId: string,
): DiscordActions {
  let n = 0;
  const once = async <T>(write: string, run: (resumed: boolean) => Promise<T>): Promise<T> => {
    const key = `${callId}.${n++}.${write}`;
    const seen = await journal.get(key);
    if (seen && seen.value !== PENDING) return seen.value as T;
    await journal.put(key, PENDING);
    const value = await run(seen !== undefined);
    await journal.put(key, value ?? null);
    return value;
  };
  return {
    createPoll: (r) => once('createPoll', () => discord.createPoll(r)),
    createThread: (r) => once('createThread', () => discord.createThread(r)),
    pinMessage: (r) => once('pinMessage', () => discord.pinMessage(r)),
    createChannel: (r) =>
      once('createChannel', (resumed) =>
        discord.createChannel(resumed ? { ...r, adoptExisting: true } : r),
      ),
    createRole: (r) => once('createRole', () => discord.createRole(r)),
    assignRole: (r) => once('assignRole', () => discord.assignRole(r)),
    setChannelPermissions: (r) =>
      once('setChannelPermissions', () => discord.setChannelPermissions(r)),
    post: (guildId, channelId, content, id) =>
      once('post', () => discord.post(guildId, channelId, content, id)),
    botUserId: () => discord.botUserId(),
    member: (guildId, userId, channelId) => discord.member(guildId, userId, channelId),
    roles: (guildId) => discord.roles(guildId),
  };
}
