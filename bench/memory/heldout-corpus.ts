import { CONVERSATIONS_A } from './heldout-conversations-a';
import { CONVERSATIONS_B } from './heldout-conversations-b';
import type { CorpusMessage } from './recall-corpus';

/**
 * The held-out recall corpus: hand-written conversations of two friends over months of
 * dated sessions, in the manner of public long-conversation QA sets, written apart from
 * the generated corpus and from the ranking's word tables (never tuned against). Its
 * questions paraphrase, name a person, ask "when" (the evidence is the turn telling of
 * it, dated by its session), ask what someone might become (evidence spread over
 * sessions) or name a month.
 */
export interface Conversation {
  /** The two speakers; a turn starts with the first letter of its speaker's name. */
  people: [string, string];
  sessions: { at: string; turns: string[] }[];
  /** [question, evidence tags, kind]. */
  questions: [string, string[], HeldoutKind][];
}

export type HeldoutKind = 'single-hop' | 'multi-hop' | 'temporal' | 'inference';

export interface HeldoutCorpus {
  people: string[];
  channels: number;
  messages: CorpusMessage[];
  questions: { text: string; evidence: string[]; kind: HeldoutKind }[];
}

/** Seconds between the turns of a session. */
const TURN_GAP_MS = 95_000;

/** Every held-out conversation as a corpus of its own (one guild, one channel each). */
export function heldoutCorpora(): HeldoutCorpus[] {
  let next = 1;
  return [...CONVERSATIONS_A, ...CONVERSATIONS_B].map((c) => {
    const messages: CorpusMessage[] = [];
    const tagged = new Map<string, string[]>();
    for (const s of c.sessions) {
      const start = Date.parse(s.at);
      s.turns.forEach((line, i) => {
        const m = /^(\p{L}): (.*?)(?: #([\w-]+))?$/u.exec(line);
        const author = c.people.findIndex((p) => p[0] === m?.[1]);
        if (!m || author < 0) throw new Error(`held-out turn without its speaker: ${line}`);
        const messageId = String(next++);
        messages.push({
          channel: 0,
          messageId,
          author,
          content: m[2],
          at: start + i * TURN_GAP_MS,
        });
        if (m[3]) tagged.set(m[3], [...(tagged.get(m[3]) ?? []), messageId]);
      });
    }
    const questions = c.questions.map(([text, tags, kind]) => {
      const evidence = tags.flatMap((t) => tagged.get(t) ?? []);
      if (evidence.length !== tags.length) throw new Error(`evidence missing for: ${text}`);
      return { text, evidence, kind };
    });
    return { people: [...c.people], channels: 1, messages, questions };
  });
}
