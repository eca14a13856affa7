/**
 * The id of the epoch that starts with `firstMessageId` in a channel. Deterministic, so a
 * timer fired twice (a crash between publish and ack, two instances) names one epoch.
 */
export function epochId(channelId: string, firstMessageId: string): string {
  return `ep-${channelId}-${firstMessageId}`;
}

/** The timer key of a channel's pending epoch close (one per channel, re-armed by each message). */
export function epochTimerKey(guildId: string, channelId: string): string {
  return `epoch:${guildId}:${channelId}`;
}

/** Whether the channel has been silent long enough for its open epoch to close. */
export function epochCloseDue(lastMessageAt: number, gapMs: number, now: number): boolean {
  return now - lastMessageAt >= gapMs;
}

export interface EpochMessage {
  messageId: string;
  authorId: string;
  authorName?: string;
  content: string;
  at: number;
}

export interface EpochOutline {
  startAt: number;
  endAt: number;
  messageCount: number;
  /** Author ids by number of messages, most active first. */
  participants: string[];
}

/** What an epoch is over its messages, before the model summarises it. */
export function outlineEpoch(messages: readonly EpochMessage[]): EpochOutline {
  const counts = new Map<string, number>();
  let startAt = Infinity;
  let endAt = -Infinity;
  for (const m of messages) {
    counts.set(m.authorId, (counts.get(m.authorId) ?? 0) + 1);
    startAt = Math.min(startAt, m.at);
    endAt = Math.max(endAt, m.at);
  }
  const participants = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return {
    startAt: messages.length ? startAt : 0,
    endAt: messages.length ? endAt : 0,
    messageCount: messages.length,
    participants: participants.map(([id]) => id),
  };
}

/** The transcript handed to the summariser, oldest first, within a character budget (newest kept). */
export function epochTranscript(messages: readonly EpochMessage[], maxChars = 12_000): string {
  const lines = messages.map((m) => `${m.authorName ?? m.authorId}: ${m.content}`);
  const kept: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0 && used + lines[i].length <= maxChars; i--) {
    kept.unshift(lines[i]);
    used += lines[i].length + 1;
  }
  return kept.join('\n');
}
