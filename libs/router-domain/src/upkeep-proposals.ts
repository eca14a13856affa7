import { channelSlug } from './restructure';

/**
 * What the steward's upkeep proposes from memory's epochs (pure): a channel for a topic the
 * guild keeps coming back to outside a channel of its own, archiving a channel that went
 * quiet after a long life, and a role for a group that keeps meeting around a topic. Time
 * comes in; the thresholds are the router's configuration (docs/architecture.md,
 * "Steward").
 */

/** One closed epoch of a channel, as memory's epochs list (`Subjects.memory.epochsList`) answers it. */
export interface UpkeepEpoch {
  channelId: string;
  /** ISO times. */
  startAt: string;
  endAt: string;
  messageCount: number;
  participants: string[];
  topics: string[];
}

export interface UpkeepThresholds {
  /** Distinct days a topic must be discussed on (`DIRIGENT_UPKEEP_TOPIC_DAYS`). */
  topicDays: number;
  /** Distinct members who discussed it (`DIRIGENT_UPKEEP_TOPIC_MEMBERS`). */
  topicMembers: number;
  /** Days without a message before a channel may be archived. */
  archiveIdleDays: number;
  /** Messages a channel must have held to be worth archiving (not deleting). */
  archiveMinMessages: number;
  /** Members who keep meeting around a topic before a role is proposed. */
  roleMembers: number;
  /** How long (days) they must have kept meeting. */
  roleDays: number;
}

export const DEFAULT_UPKEEP: UpkeepThresholds = {
  topicDays: 3,
  topicMembers: 4,
  archiveIdleDays: 30,
  archiveMinMessages: 200,
  roleMembers: 5,
  roleDays: 21,
};

const DAY_MS = 86_400_000;
const day = (iso: string) => iso.slice(0, 10);

/** A guild channel by id and name. */
export interface UpkeepChannel {
  channelId: string;
  name: string;
}

export interface TopicChannelCandidate {
  topic: string;
  /** The channel name proposed (the topic's slug). */
  name: string;
  days: number;
  members: number;
}

/** A topic's slug as the key it is proposed under (once per subject). */
export const topicKey = (topic: string) => channelSlug(topic).slice(0, 40);

/** Epochs grouped by topic (by its slug: "Seed swap" and "seed-swap" are one). */
function byTopic(
  epochs: readonly UpkeepEpoch[],
): Map<string, { topic: string; of: UpkeepEpoch[] }> {
  const topics = new Map<string, { topic: string; of: UpkeepEpoch[] }>();
  for (const e of epochs)
    for (const t of new Set(e.topics.map((x) => x.trim()).filter(Boolean))) {
      const key = topicKey(t);
      if (!key) continue;
      const entry = topics.get(key) ?? { topic: t, of: [] };
      entry.of.push(e);
      topics.set(key, entry);
    }
  return topics;
}

/** Whether the topic already has a channel of its own (its slug in the channel's name). */
const hasChannel = (key: string, channels: readonly UpkeepChannel[]) =>
  channels.some((c) => c.name === key || c.name.includes(key));

/**
 * Topics discussed on at least `topicDays` distinct days by at least `topicMembers` members,
 * in channels that are not the topic's own, and that have no channel named after them.
 * Most-discussed first.
 *
 * @example
 * topicChannels(epochs, [{ channelId: '1', name: 'general' }], DEFAULT_UPKEEP)
 * // → [{ topic: 'seed swap', name: 'seed-swap', days: 3, members: 4 }]
 */
export function topicChannels(
  epochs: readonly UpkeepEpoch[],
  channels: readonly UpkeepChannel[],
  t: UpkeepThresholds,
): TopicChannelCandidate[] {
  const out: TopicChannelCandidate[] = [];
  for (const [key, { topic, of }] of byTopic(epochs)) {
    if (hasChannel(key, channels)) continue;
    const days = new Set(of.map((e) => day(e.startAt))).size;
    const members = new Set(of.flatMap((e) => e.participants)).size;
    if (days >= t.topicDays && members >= t.topicMembers)
      out.push({ topic, name: key, days, members });
  }
  return out.sort((a, b) => b.days - a.days || b.members - a.members);
}

export interface ArchiveCandidate {
  channelId: string;
  name: string;
  messages: number;
  idleDays: number;
}

/**
 * Channels whose last epoch ended at least `archiveIdleDays` ago and whose epochs held at
 * least `archiveMinMessages` messages; `skip` (the mod channel, archives) never.
 */
export function archiveCandidates(
  epochs: readonly UpkeepEpoch[],
  channels: readonly UpkeepChannel[],
  now: number,
  t: UpkeepThresholds,
  skip: (c: UpkeepChannel) => boolean = () => false,
): ArchiveCandidate[] {
  const out: ArchiveCandidate[] = [];
  for (const c of channels) {
    if (skip(c) || c.name.startsWith('archived-')) continue;
    const of = epochs.filter((e) => e.channelId === c.channelId);
    if (!of.length) continue;
    const last = Math.max(...of.map((e) => Date.parse(e.endAt)));
    const messages = of.reduce((n, e) => n + e.messageCount, 0);
    const idleDays = Math.floor((now - last) / DAY_MS);
    if (idleDays >= t.archiveIdleDays && messages >= t.archiveMinMessages)
      out.push({ channelId: c.channelId, name: c.name, messages, idleDays });
  }
  return out.sort((a, b) => b.idleDays - a.idleDays);
}

export interface RoleCandidate {
  topic: string;
  /** The role name proposed (the topic's slug). */
  name: string;
  memberIds: string[];
  days: number;
}

/**
 * Topics around which at least `roleMembers` members each kept meeting for `roleDays` days
 * or more (their first and last epoch on the topic that far apart).
 */
export function roleCandidates(
  epochs: readonly UpkeepEpoch[],
  t: UpkeepThresholds,
): RoleCandidate[] {
  const out: RoleCandidate[] = [];
  for (const [key, { topic, of }] of byTopic(epochs)) {
    const span = new Map<string, { first: number; last: number }>();
    for (const e of of)
      for (const p of e.participants) {
        const at = Date.parse(e.startAt);
        const s = span.get(p) ?? { first: at, last: at };
        span.set(p, { first: Math.min(s.first, at), last: Math.max(s.last, at) });
      }
    const regulars = [...span]
      .filter(([, s]) => s.last - s.first >= t.roleDays * DAY_MS)
      .map(([id]) => id)
      .sort();
    if (regulars.length < t.roleMembers) continue;
    const times = of.map((e) => Date.parse(e.startAt));
    const days = Math.floor((Math.max(...times) - Math.min(...times)) / DAY_MS);
    out.push({ topic, name: key, memberIds: regulars, days });
  }
  return out.sort((a, b) => b.memberIds.length - a.memberIds.length);
}
