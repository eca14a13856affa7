import type { InterruptionAction } from '@dirigent/contracts';
import { messageFeatures } from './room';

/** What a mid-burst interruption does with the beats still withheld (the contract's spelling). */
export type { InterruptionAction };

export interface InterruptionInput {
  /** The interrupting message. */
  content: string;
  /** It mentions this agent or replies to one of its messages. */
  toBot: boolean;
  /** What the burst is about: the message it answered and its beats. */
  topicText: string;
}

const TOPIC_CHANGE =
  /\b(anyway|anyways|btw|by the way|on another note|unrelated|off topic|speaking of|new topic|changing the subject|different question|switching gears)\b/i;
const AGREEMENT =
  /^(yes|yeah|yep|yup|ya|true|agreed|agree|exactly|right|same|fair|fair enough|indeed|totally|absolutely|ok|okay|k|sure|nice|lol|lmao|haha+|\+1|this|so true|facts)\b/i;

const STOP = new Set(
  (
    'the a an and or but if then so to of in on at for with about from by as is are was were be been ' +
    'it its this that these those i you he she we they me my your our their them him her us ' +
    'do does did have has had not no yes just really very can could would should will what who ' +
    'when where why how which there here than too also only some any all more most much many ' +
    'one get got like know think hold wait well okay yeah going gonna want'
  ).split(' '),
);

/** The content words of a text: lowercase, 3+ letters, not a stop word. */
export function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  return new Set(words.filter((w) => !STOP.has(w)));
}

/**
 * Judges an interruption from the new message, not from a redraw of the router:
 * a question to the bot → `fold`; a change of topic (a cue such as "anyway", or three
 * content words or more none of which the burst's topic shares) → `abort`; a message to the
 * bot that is no question, or a question on the topic → `fold`; agreement or a short aside
 * → `continue`.
 *
 * @example
 * classifyInterruption({ content: 'exactly', toBot: false, topicText: 'pizza debate' }) // 'continue'
 */
export function classifyInterruption(i: InterruptionInput): InterruptionAction {
  const text = i.content.trim();
  const question = messageFeatures(text).question;
  if (i.toBot && question) return 'fold';
  if (TOPIC_CHANGE.test(text)) return 'abort';
  const words = contentWords(text);
  const topic = contentWords(i.topicText);
  const shared = [...words].some((w) => topic.has(w));
  if (words.size >= 3 && !shared && !AGREEMENT.test(text)) return 'abort';
  if (i.toBot) return 'fold';
  if (question && shared) return 'fold';
  if (question) return 'abort';
  return 'continue';
}
