import {
  ChannelUpdated,
  MemberChanged,
  MessageCreated,
  MessageDeleted,
  ReactionChanged,
  TypingStarted,
} from './payloads';
import { Subjects, type DiscordEventKind } from './subjects';

/** The payload class of each Discord event kind (its `create` validates the body). */
export const DiscordEventPayloads = {
  'message.created': MessageCreated,
  'message.deleted': MessageDeleted,
  'typing.started': TypingStarted,
  'member.joined': MemberChanged,
  'member.left': MemberChanged,
  'reaction.added': ReactionChanged,
  'reaction.removed': ReactionChanged,
  'channel.updated': ChannelUpdated,
} as const satisfies Record<DiscordEventKind, { create(input: unknown): object }>;

export type DiscordEventPayload<K extends DiscordEventKind> = InstanceType<
  (typeof DiscordEventPayloads)[K]
>;

/** What a Discord event's subject says, read once. */
export type DiscordEventSubject =
  /** `dirigent.discord.evt.<guildId>.guild.joined`: the bot is in a guild. */
  | { kind: 'guild.joined'; guildId: string }
  /**
   * `dirigent.discord.evt.<guildId>.<channelId>.<kind>`; `kind` is the rest of the subject
   * as sent (a kind this version does not know is still read, for its consumer to skip).
   */
  | { kind: string; guildId: string; channelId: string };

const PREFIX = `${Subjects.discord.evtPrefix}.`;

/**
 * Reads a subject of the Discord event stream into its guild, channel and kind; undefined
 * when it is not one (no guild or channel token). Ids are returned as sent: checking them is
 * the consumer's (the payload carries them too).
 *
 * @example
 * parseDiscordEventSubject('dirigent.discord.evt.1.2.message.created');
 * // → { guildId: '1', channelId: '2', kind: 'message.created' }
 */
export function parseDiscordEventSubject(subject: string): DiscordEventSubject | undefined {
  if (!subject.startsWith(PREFIX)) return undefined;
  const [guildId, channelId, ...rest] = subject.slice(PREFIX.length).split('.');
  if (!guildId || !channelId) return undefined;
  const kind = rest.join('.');
  if (channelId === 'guild' && kind === 'joined') return { kind: 'guild.joined', guildId };
  return { kind, guildId, channelId };
}

/** Whether `kind` is one of the Discord event kinds this version has a payload for. */
export function isDiscordEventKind(kind: string): kind is DiscordEventKind {
  return Object.prototype.hasOwnProperty.call(DiscordEventPayloads, kind);
}
