/**
 * Steward upkeep predicates (pure): when a busy channel's talk has split into topics, the
 * steward proposes a thread for the side topic. Evaluated by a reactor job on each message,
 * over the channel's recent messages; never on a clock grid.
 */

export interface UpkeepMessage {
  messageId: string;
  authorId: string;
  authorIsBot: boolean;
  /** Epoch ms. */
  at: number;
  content: string;
  replyToMessageId?: string;
}

export interface TopicSplitSettings {
  /** Only messages this recent count. */
  windowMs: number;
  /** Human messages in the window that make the channel busy. */
  minMessages: number;
  /** Messages a topic needs to be one. */
  minPerTopic: number;
}

export const DEFAULT_TOPIC_SPLIT: TopicSplitSettings = {
  windowMs: 15 * 60_000,
  minMessages: 12,
  minPerTopic: 4,
};

export interface TopicSplit {
  /** The side topic's most shared word: the thread's name. */
  topic: string;
  /** Its first message: where the thread starts. */
  messageId: string;
  size: number;
  /** Sizes of every topic found, largest first. */
  topics: number[];
}

const STOP = new Set(
  (
    'about after again also been before being could does doing from have having here into ' +
    'just like more most much only other over really same should some such than that their ' +
    'them then there these they this those through very want what when where which while ' +
    'will with would your yours yeah okay sure think know good great thanks maybe still'
  ).split(' '),
);

/** A message's topic words: lower-case words of four letters or more, not the common ones. */
export function topicWords(content: string): Set<string> {
  const words = content
    .toLowerCase()
    .replace(/<[@#][!&]?\d+>|https?:\/\/\S+/g, ' ')
    .match(/[a-z][a-z0-9']{3,}/g);
  return new Set((words ?? []).map((w) => w.replace(/'s?$/, '')).filter((w) => !STOP.has(w)));
}

function find(parent: number[], i: number): number {
  while (parent[i] !== i) i = parent[i] = parent[parent[i]];
  return i;
}

/**
 * The topics of a busy channel: human messages in the window, joined when one replies to
 * the other or they share a topic word (one shared word bridges two topics: a split is only
 * seen when their words stay apart). A split is two topics or more of `minPerTopic` messages;
 * answers the second-largest (the side topic), if any.
 *
 * @example
 * topicSplit(recent, Date.now(), DEFAULT_TOPIC_SPLIT); // → { topic: 'raids', messageId, … }
 */
export function topicSplit(
  messages: readonly UpkeepMessage[],
  now: number,
  s: TopicSplitSettings,
): TopicSplit | undefined {
  const human = messages.filter((m) => !m.authorIsBot && now - m.at <= s.windowMs);
  if (human.length < s.minMessages) return undefined;
  const words = human.map((m) => topicWords(m.content));
  const df = new Map<string, number>();
  for (const w of words) for (const x of w) df.set(x, (df.get(x) ?? 0) + 1);
  const parent = human.map((_, i) => i);
  const join = (a: number, b: number) => (parent[find(parent, a)] = find(parent, b));
  const byId = new Map(human.map((m, i) => [m.messageId, i]));
  const lastWith = new Map<string, number>();
  human.forEach((m, i) => {
    const replied = m.replyToMessageId ? byId.get(m.replyToMessageId) : undefined;
    if (replied !== undefined) join(i, replied);
    for (const w of words[i]) {
      if ((df.get(w) ?? 0) < 2) continue;
      const j = lastWith.get(w);
      if (j !== undefined) join(i, j);
      lastWith.set(w, i);
    }
  });
  const groups = new Map<number, number[]>();
  human.forEach((_, i) => {
    const r = find(parent, i);
    groups.set(r, [...(groups.get(r) ?? []), i]);
  });
  const topics = [...groups.values()]
    .filter((g) => g.length >= s.minPerTopic)
    .sort((a, b) => b.length - a.length || a[0] - b[0]);
  if (topics.length < 2) return undefined;
  const side = topics[1];
  const counts = new Map<string, number>();
  for (const i of side) for (const w of words[i]) counts.set(w, (counts.get(w) ?? 0) + 1);
  // The most shared word; of equals, the one the side topic used first (a stable sort of
  // the words in the order they came): "ramen recipe anyone" … "miso in the broth" is
  // "ramen" whether or not one more message about the broth has arrived.
  const [topic] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['side-topic'];
  return {
    topic,
    messageId: human[side[0]].messageId,
    size: side.length,
    topics: topics.map((t) => t.length),
  };
}

export interface DecisionSettings {
  /** Only messages this recent count. */
  windowMs: number;
  /** Other members who must agree after the decision. */
  minAgreements: number;
}

export const DEFAULT_DECISION: DecisionSettings = { windowMs: 30 * 60_000, minAgreements: 2 };

const DECISION =
  /\b(?:we(?:'ve| have)? (?:decided|agreed)|decision:|let'?s go with|we(?:'ll| will) go with|it'?s settled)/i;
const AGREEMENT =
  /^\s*(?:\+1|agreed|agree|yes|yep|yeah|deal|sounds good|ok(?:ay)?|same|let'?s do it|👍|✅)\b|^\s*(?:👍|✅|\+1)/i;

export interface DecisionReached {
  messageId: string;
  text: string;
  /** Members who agreed after it. */
  agreed: number;
}

/**
 * An archive-worthy decision: a human message that states one ("we decided", "let's go
 * with", "decision:") followed by agreement (a reply to it, or a short "agreed"/"+1"/👍) from
 * at least `minAgreements` other members. The newest such decision, if any.
 */
export function decisionReached(
  messages: readonly UpkeepMessage[],
  now: number,
  s: DecisionSettings,
): DecisionReached | undefined {
  const human = messages.filter((m) => !m.authorIsBot && now - m.at <= s.windowMs);
  for (let i = human.length - 1; i >= 0; i--) {
    const d = human[i];
    if (!DECISION.test(d.content)) continue;
    const agreeing = new Set(
      human
        .slice(i + 1)
        .filter(
          (m) =>
            m.authorId !== d.authorId &&
            (m.replyToMessageId === d.messageId || AGREEMENT.test(m.content)),
        )
        .map((m) => m.authorId),
    );
    if (agreeing.size >= s.minAgreements) {
      return { messageId: d.messageId, text: d.content.slice(0, 200), agreed: agreeing.size };
    }
  }
  return undefined;
}
