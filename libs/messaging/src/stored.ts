import { JetStreamApiError, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';

/** JetStream's "no message found": the stream holds nothing at that subject or sequence. */
export const NO_MESSAGE_FOUND = 10037;

/**
 * One stored message of a stream (by sequence, or the last of a subject), or undefined when
 * there is none; other errors are thrown.
 *
 * @example
 * const last = await storedMessage(jsm, Streams.discordEvents, { last_by_subj: subj });
 */
export async function storedMessage(
  jsm: JetStreamManager,
  stream: string,
  query: { last_by_subj: string } | { seq: number },
): Promise<StoredMsg | undefined> {
  try {
    return (await jsm.streams.getMessage(stream, query)) ?? undefined;
  } catch (e) {
    if (e instanceof JetStreamApiError && e.code === NO_MESSAGE_FOUND) return undefined;
    throw e;
  }
}

/**
 * Removes message `seq` from `stream` (marked deleted, not erased). A message already gone is
 * fine: JetStream says "no message found" for one never there or below the stream's first
 * sequence, and "sequence <seq> not found" for one deleted before (a retry, or two writers).
 * Returns whether this call removed it.
 */
export async function removeStoredMessage(
  jsm: JetStreamManager,
  stream: string,
  seq: number,
): Promise<boolean> {
  try {
    return await jsm.streams.deleteMessage(stream, seq, false);
  } catch (e) {
    if (e instanceof JetStreamApiError && ALREADY_GONE.test(e.message)) return false;
    throw e;
  }
}

const ALREADY_GONE = /no message found|sequence \d+ not found/i;
