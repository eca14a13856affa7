/**
 * The `type` of every envelope Dirigent publishes, spelled once. Discord events use their
 * kind (`message.created`, …; see `DiscordEventKind`). Additive only, like the subjects.
 */
export const EnvelopeTypes = {
  turnGranted: 'turn.granted',
  turnComplete: 'turn.complete',
  sendMessage: 'send-message',
  deleteMessage: 'delete-message',
  addReaction: 'add-reaction',
  typing: 'typing',
  /** A commit of an event-sourced aggregate (all events of one decision). */
  commit: 'es.commit',
  channelTimerFired: 'channel.timer-fired',
  deadLetter: 'dead-letter',
  llmUsage: 'llm.usage',
  llmUsageBatch: 'llm.usage.batch',
} as const;

/** The event-sourced aggregates: one subject each, `dirigent.es.<aggregate>.<id>`. */
export const Aggregates = {
  channel: 'channel',
  identity: 'identity',
  /** A steward proposal (`dirigent.es.proposal.<proposalId>`). */
  proposal: 'proposal',
  /** A guild's mod channel claim (`dirigent.es.mod-channel.<guildId>`). */
  modChannel: 'mod-channel',
} as const;
export type AggregateName = (typeof Aggregates)[keyof typeof Aggregates];
