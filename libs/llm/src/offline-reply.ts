import { createHash } from 'node:crypto';
import { NO_REPLY } from '@dirigent/contracts';
import { askedWords, contentWords, onlyAsks, overlap } from './offline-words';
import { contentText, type ChatRequest } from './request';

/** One line of what memory put in the prompt: who said it (when known) and the text. */
export interface Recalled {
  who?: string;
  text: string;
}

/** A prompt as the offline model reads it: the message answered, its author, what memory holds. */
export interface ReadPrompt {
  /** The speaker's name (`You are <name>` in the system prompt). */
  speaker?: string;
  author?: string;
  /** The message answered, without mentions; empty for an unprompted turn. */
  message: string;
  memory: Recalled[];
  /** The delegation tools the request offers (`delegate_to_<type>` → `<type>`: what it is for). */
  tools: { type: string; use: string }[];
  orchestrator: boolean;
}

const MEMORY_HEADINGS =
  /^(live transcript|from the archive|highlights|earlier conversations|group lore|people|memory)/i;

/** Splits `## heading` sections; text before the first heading is section ''. */
function sections(text: string): { heading: string; body: string }[] {
  const out: { heading: string; body: string }[] = [{ heading: '', body: '' }];
  for (const line of text.split('\n')) {
    const h = /^##\s+(.+)$/.exec(line);
    if (h && !line.startsWith('###')) out.push({ heading: h[1].trim(), body: '' });
    else out[out.length - 1].body += `${line}\n`;
  }
  return out.map((s) => ({ heading: s.heading, body: s.body.trim() }));
}

/** One rendered memory line (`[#c 2026-…] Ada: text [2 reactions, 0 replies]`, `- lore`, `Ada: note`). */
function recalled(line: string): Recalled | null {
  const plain = line
    .replace(/\s*\[\d+ reactions, \d+ replies\]\s*$/, '')
    .replace(/^\[[^\]]*\]\s*/, '')
    .replace(/^-\s+/, '')
    .trim();
  if (!plain) return null;
  const said = /^([^:\n]{1,60}):\s+(.+)$/.exec(plain);
  return said ? { who: said[1].trim(), text: said[2].trim() } : { text: plain };
}

const withoutMentions = (text: string) =>
  text
    .replace(/<@[!&]?\d+>/g, ' ')
    .replace(/(^|\s)@[\w-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Reads the last user message of a request the way the services build their prompts. */
export function readPrompt(req: ChatRequest): ReadPrompt {
  const system = req.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => contentText(m.content))
    .join('\n');
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  const parts = sections(lastUser ? contentText(lastUser.content) : '');
  const asked = parts.find((s) => /^message\b/i.test(s.heading));
  const author = asked ? /^message from (.+)$/i.exec(asked.heading)?.[1]?.trim() : undefined;
  const raw = asked ? asked.body : parts.length === 1 ? parts[0].body : '';
  const message = /^\((none|no message)\b/.test(raw) ? '' : withoutMentions(raw);
  const key = normal(message);
  const memory = parts
    .filter((s) => MEMORY_HEADINGS.test(s.heading))
    .flatMap((s) =>
      CHRONOLOGICAL.test(s.heading) ? upTo(s.body.split('\n'), key) : s.body.split('\n'),
    )
    .map(recalled)
    .filter(
      (r): r is Recalled => !!r && normal(withoutMentions(r.text)) !== key && !isMarker(r.text),
    );
  const tools = (req.tools ?? []).flatMap((t) => {
    const m = /^delegate_to_(\w+)$/.exec(t.function?.name ?? '');
    // `Delegate to the X agent: what it is for: details.` → `what it is for`
    const use = (t.function?.description ?? '').split(':')[1]?.trim().replace(/\.$/, '') ?? '';
    return m ? [{ type: m[1], use }] : [];
  });
  return {
    speaker: /\bYou are (?:the )?([A-Z][\w-]*)/.exec(system)?.[1],
    author,
    message,
    memory,
    tools,
    orchestrator: /^You are the orchestrator\b/m.test(system),
  };
}

/** A section in the order things were said; the others are ranked (the archive, highlights). */
const CHRONOLOGICAL = /^live transcript/i;

/**
 * A transcript's lines up to the message answered (its last occurrence): what follows it
 * answers it (another agent's reply to the same message), not memory of anything. A ranked
 * section is not cut: the message itself may rank first in it.
 */
function upTo(lines: string[], key: string): string[] {
  if (!key) return lines;
  for (let i = lines.length - 1; i >= 0; i--) {
    const r = recalled(lines[i]);
    if (r && normal(withoutMentions(r.text)) === key) return lines.slice(0, i + 1);
  }
  return lines;
}

const normal = (text: string) => text.toLowerCase().replace(/\W+/g, ' ').trim();
const isMarker = (text: string) => text.trim() === NO_REPLY || text.startsWith('[offline');

/** A line that quotes someone (`Basil said: "…"`, `Ana: "…"`) or is a Discord quote (`> …`). */
const QUOTING = /:\s*["“]|^>\s/m;

/** "I said", "I told you", "my …": the asker asks about their own words. */
const OWN_WORDS = /\b(i (said|say|told|tell|mentioned|mention|wrote|asked)|my)\b/i;

/**
 * The memory line sharing most of what the message asks about (`askedWords`), ties to the
 * latest, a question never; null if none. Asked of the asker's own words ("where I said …"):
 * their lines first.
 */
function bestHit(p: ReadPrompt, anyWillDo: boolean, memoryAsk: boolean): Recalled | null {
  const asked = askedWords(p.message, p.speaker);
  const own = memoryAsk && OWN_WORDS.test(p.message) && p.author;
  let best: Recalled | null = null;
  let bestScore = 0;
  for (const r of p.memory) {
    if (r.who && p.speaker && r.who === p.speaker) continue;
    // A line memory cut short ("…") is no longer what anyone said: it is never quoted.
    if (/(…|\.\.\.)$/.test(r.text)) continue;
    // Nor a line quoting someone itself: replies quoting it would nest deeper each turn.
    if (QUOTING.test(r.text)) continue;
    // Nor a question: "where is the picnic?" is no answer to where the picnic is.
    if (onlyAsks(r.text)) continue;
    const score = overlap(r.text, asked) + (own && r.who === p.author ? 2 : 0);
    if (score >= bestScore && (score > 0 || anyWillDo) && contentWords(r.text).length) {
      best = r;
      bestScore = score;
    }
  }
  return best;
}

/** A text's sentences, as written (each with its own punctuation). */
export function sentencesOf(text: string): string[] {
  return text
    .trim()
    .split(/(?<=[.!?])\s+(?=\S)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Longer lines are quoted by their one sentence that shares most words with the message. */
const QUOTE_WHOLE_MAX = 200;

/** What of a recalled line is quoted: all of it, or its one sentence that answers most. */
function quotable(text: string, asked: ReadonlySet<string>): string {
  const whole = text.trim();
  const parts = sentencesOf(whole);
  if (whole.length <= QUOTE_WHOLE_MAX || parts.length < 2) return whole;
  let best = parts[0];
  let bestScore = -1;
  for (const s of parts) {
    const score = overlap(s, asked);
    if (score > bestScore) [best, bestScore] = [s, score];
  }
  return best;
}

/** A quotation that stays one: its own double quotes become single ones. */
const quoted = (text: string) => `"${text.replace(/["“”]/g, "'")}"`;

/** Words that make a sentence about its speaker or its listener (not reported as said). */
const PERSONAL = new Set(
  (
    "i i'm i've i'd i'll me my mine myself we we're we've we'll us our ours ourselves " +
    "you you're you've your yours yourself"
  ).split(' '),
);
/** "I'm" → "'re": the ending the subject takes when it is said of someone else. */
const CONTRACTED: Record<string, string> = {
  i: '',
  "i'm": "'re",
  "i've": "'ve",
  "i'd": "'d",
  "i'll": "'ll",
};
const REPORTED_MAX_WORDS = 25;

/**
 * A whole sentence someone said of themselves, said of them: "I'm learning the cello these
 * days." → "you said you're learning the cello these days" (to its author) or "Ana said
 * they're learning the cello these days". Null unless the sentence starts with its speaker
 * ("I", "I'm", "I've", "I am", "I was", …) and says nothing else of anyone's own person,
 * so the reported sentence is the whole of it, grammatical as it stands.
 */
function reported(sentence: string, who: string, toAuthor: boolean): string | null {
  const text = sentence.trim().replace(/[.!]+$/, '');
  if (/[?"“”:;]/.test(text)) return null;
  const words = text.split(/\s+/);
  const norm = (w: string) => w.replace(/’/g, "'").toLowerCase();
  const first = norm(words[0] ?? '');
  if (!(first in CONTRACTED) || words[0][0] !== 'I' || words.length < 3) return null;
  if (words.length > REPORTED_MAX_WORDS) return null;
  const rest = words.slice(1);
  if (rest.some((w) => PERSONAL.has(norm(w).replace(/[^a-z']/g, '')))) return null;
  const they = toAuthor ? 'you' : 'they';
  let subject = `${they}${CONTRACTED[first]}`;
  if (first === 'i') {
    const verb = norm(rest[0]);
    if (verb === 'am') [subject, rest[0]] = [they, 'are'];
    else if (verb === 'was') [subject, rest[0]] = [they, 'were'];
  }
  return `${toAuthor ? 'you' : who} said ${subject} ${rest.join(' ')}`;
}

/** Who a recalled line is by, as a reply names them ("you" for the asker). */
function nameOf(hit: Recalled, author?: string): { name: string; you: boolean } {
  const plain = (n?: string) => n?.replace(/\s*\([^)]*\)\s*$/, '').trim();
  const who = plain(hit.who);
  if (!who) return { name: 'the notes say', you: false };
  const you = !!author && plain(author) === who;
  return { name: you || /^you$/i.test(who) ? 'you' : who, you: you || /^you$/i.test(who) };
}

/**
 * What a reply says it recalls, as a clause: the whole line (or its one sentence that answers)
 * quoted with its author (`Basil said: "…"`), or, when that sentence is someone speaking of
 * themselves, the whole of it reported (`you said you're learning the cello`).
 */
function recollection(
  hit: Recalled,
  author: string | undefined,
  asked: ReadonlySet<string>,
): string {
  const text = quotable(hit.text, asked);
  const { name, you } = nameOf(hit, author);
  if (hit.who) {
    const said = reported(text, name, you);
    if (said) return said;
    return `${name} said: ${quoted(text)}`;
  }
  return `${name}: ${quoted(text)}`;
}

/** A sentence's end: a quote that ends its own sentence ends the reply's too. */
const ended = (s: string) => (/[.!?]"?$/.test(s) ? s : `${s}.`);

/**
 * How one agent talks: the same situations, said its own way. `said` is a recollection
 * clause (lower-case unless it starts with a name), `to` is `, <name>` or ''.
 */
interface Voice {
  hello: (to: string) => string[];
  thanks: (to: string) => string[];
  /** A memory question answered. */
  recall: ((said: string) => string)[];
  /** A memory question with nothing in memory. */
  forgot: string[];
  /** A question the offline model cannot answer: it says so plainly. */
  offline: string[];
  /** A message memory has something on. */
  related: ((said: string) => string)[];
  /** A statement with nothing to add. */
  ack: string[];
  /** Speaking up unprompted with something memory holds. */
  unprompted: ((said: string) => string)[];
}

const VOICES: Record<string, Voice> = {
  // Warm and curious.
  ada: {
    hello: (to) => [`Hi${to}! Nice to see you here.`, `Hello${to}, and welcome!`],
    thanks: (to) => [`You're welcome${to}!`, 'Anytime, happy to help.'],
    recall: [(s) => `If I remember right, ${s}`, (s) => `From what I recall, ${s}`],
    forgot: [
      "I don't remember anything about that yet.",
      'Hmm, nothing about that comes to mind yet.',
    ],
    offline: [
      "I'd love to help, but I'm running offline without a model, so I can't really answer that. Does anyone else know?",
      "That's a good one! Offline I can only go by what people said here, and nobody has covered it yet.",
    ],
    related: [(s) => `That reminds me: ${s}`, (s) => `Oh, on that note, ${s}`],
    ack: ['Oh, nice, thanks for sharing!', 'That sounds lovely.', 'Good to hear!'],
    unprompted: [(s) => `I was just thinking back: ${s}`],
  },
  // Practical and brief.
  basil: {
    hello: (to) => [`Hey${to}.`, `Hey${to}, good to have you.`],
    thanks: (to) => [`No problem${to}.`, 'Sure thing.'],
    recall: [(s) => `Last I have is that ${s}`, (s) => `Going by memory, ${s}`],
    forgot: ['Nothing on that in my notes yet.', "I've got nothing on that so far."],
    offline: [
      "Can't work that out offline: there's no model behind me yet.",
      'No model is connected, so that is beyond me right now. Someone else may know.',
    ],
    related: [(s) => `Related: ${s}`, (s) => `For what it's worth, ${s}`],
    ack: ['Noted.', 'Got it.', 'Makes sense.'],
    unprompted: [(s) => `Picking up an old thread: ${s}`],
  },
  // The archivist: goes by the record.
  clio: {
    hello: (to) => [`Hello${to}. Welcome to the channel.`, `Hi${to}, good to see a new face.`],
    thanks: (to) => [`Glad it helped${to}.`, 'My pleasure.'],
    recall: [(s) => `Looking back, ${s}`, (s) => `The record shows that ${s}`],
    forgot: ['The archive has nothing on that yet.', 'I looked back and found nothing on that.'],
    offline: [
      'Offline I can only quote what the channel remembers, and it holds nothing on that yet.',
      "Without a model I can't reason that through; I can only look up what was said here.",
    ],
    related: [(s) => `Worth recalling: ${s}`, (s) => `For the record, ${s}`],
    ack: ["I'll remember that.", 'Noted for the record.', "That's worth keeping in mind."],
    unprompted: [(s) => `From the archive: ${s}`],
  },
  // Dry; the house bot.
  dit: {
    hello: (to) => [`Hey${to}.`, `Hello${to}. Make yourself at home.`],
    thanks: () => ['Anytime.', "Don't mention it."],
    recall: [(s) => `I think ${s}`, (s) => `As far as I can tell, ${s}`],
    forgot: ['Nothing on that in memory. Yet.', "Memory's blank on that one."],
    offline: [
      "I'm offline: no model, so I can quote memory but not think. Memory has nothing on this.",
      "Offline mode: I can't answer that, only quote what was said, and nobody has said it.",
    ],
    related: [(s) => `Side note: ${s}`, (s) => `Relevant, maybe: ${s}`],
    ack: ['Fair enough.', 'Sure.', 'Noted.'],
    unprompted: [(s) => `Thinking back, ${s}`],
  },
  // The orchestrator: routes work, says what it can and cannot do.
  molt: {
    hello: (to) => [
      `Hello${to}. Ask me for something and I'll route it.`,
      `Hi${to}. What do you need done?`,
    ],
    thanks: () => ["You're welcome.", 'Glad to help.'],
    recall: [(s) => `Memory has this: ${s}`, (s) => `Per memory, ${s}`],
    forgot: ['Memory has no record of that.', 'No record of that in memory.'],
    offline: [
      "I can't answer that offline: no model is connected for me, and none of my agents covers it.",
      "That needs a model, and I'm running offline. With OPENAI_API_KEY or ANTHROPIC_API_KEY set, I could handle it.",
    ],
    related: [(s) => `Possibly relevant: ${s}`],
    ack: ['Understood.', 'Acknowledged.'],
    unprompted: [(s) => `For context, ${s}`],
  },
};
const VOICE_ORDER = ['ada', 'basil', 'clio', 'dit', 'molt'];

/** The speaker's voice: its own, or one chosen by its name's initial. */
function voiceOf(p: ReadPrompt): Voice {
  if (p.orchestrator) return VOICES.molt;
  const name = p.speaker?.toLowerCase() ?? 'ada';
  return VOICES[name] ?? VOICES[VOICE_ORDER[name.charCodeAt(0) % VOICE_ORDER.length]];
}

/** One of `options`, by the message: the same message always gets the same wording. */
function pick<T>(options: readonly T[], message: string): T {
  const base = createHash('sha256').update(message).digest().readUInt32BE(0);
  return options[base % options.length];
}

const GREETING = /^(hi|hey|hello|hiya|yo|good (morning|afternoon|evening))\b/i;
const THANKS = /\b(thanks|thank you|thx|cheers)\b/i;
const QUESTION =
  /\?|^(who|what|when|where|why|how|do|does|did|can|could|is|are|should|would|will)\b/i;
const MEMORY_ASK =
  /\b(remember|recall|remind|earlier|last time|decid|agreed|we said|talked about|again\b|did (i|we|you|they|he|she|\w+) (say|mention|tell|write))/i;
const REMIND = /\bremind (me|us)\b/i;

const CAPABILITIES = /\b(what can you do|what do you do|help me with|your (skills|abilities))\b/i;
const CODING =
  /\b(code|coding|implement|refactor|debug|compile|script|program|function|fix (the|a|this) bug|pull request)\b/i;

function orchestratorReply(p: ReadPrompt): string | null {
  const coding = p.tools.some((t) => t.type === 'coding');
  const noCli = 'no coding CLI is configured for me here (orchestrator.agents.coding)';
  if (CODING.test(p.message) && !coding) {
    return `I'd hand that to a coding agent, but ${noCli}, so I can't run or write code for you yet.`;
  }
  if (CAPABILITIES.test(p.message)) {
    const agents = p.tools.map((t) => `${t.type} (${t.use})`).join('; ');
    return [
      agents
        ? `I answer directly or hand work to my agents: ${agents}.`
        : 'I answer questions directly; no agents are set up for me yet.',
      coding ? '' : `Coding is off: ${noCli}.`,
    ]
      .filter(Boolean)
      .join(' ');
  }
  return null;
}

/**
 * The offline model as a participant: a short reply to the message a prompt answers, in the
 * speaker's own voice (Ada, Basil, Clio, Dit and Molt each word things their way), in whole
 * sentences. What it recalls it quotes whole, with its author (`Basil said: "…"`), or
 * reports whole when someone said it of themselves ("you said you're learning the cello");
 * a question it cannot answer without a model gets a plain word saying so. It never splices
 * a piece of anyone's sentence into its own. No weights and no randomness: the same request
 * always gets the same reply.
 */
export function participantReply(req: ChatRequest): string {
  const p = readPrompt(req);
  // "You (human)", the playground's person, is greeted without a name.
  const name = p.author?.replace(/\s*\([^)]*\)\s*$/, '');
  const to = name && !/^you$/i.test(name) ? `, ${name}` : '';
  if (p.orchestrator) {
    const own = orchestratorReply(p);
    if (own) return own;
  }
  const voice = voiceOf(p);
  const say = <T>(options: readonly T[]) => pick(options, p.message);
  // Asked, not told: "we decided on the lighthouse" is news, not a question to memory.
  const memoryAsk =
    MEMORY_ASK.test(p.message) && (QUESTION.test(p.message) || REMIND.test(p.message));
  // A memory question recalls only what shares a word with it (or the asker's own words):
  // the latest line at random would answer something nobody asked.
  const hit = bestHit(p, !p.message, memoryAsk);
  const recalled = hit ? recollection(hit, p.author, askedWords(p.message, p.speaker)) : '';
  if (!p.message) return recalled ? ended(say(voice.unprompted)(recalled)) : NO_REPLY;
  if (GREETING.test(p.message) && !QUESTION.test(p.message.replace(GREETING, ''))) {
    return say(voice.hello(to));
  }
  if (THANKS.test(p.message)) return say(voice.thanks(to));
  if (memoryAsk) return recalled ? ended(say(voice.recall)(recalled)) : say(voice.forgot);
  if (recalled) return ended(say(voice.related)(recalled));
  return QUESTION.test(p.message) ? say(voice.offline) : say(voice.ack);
}
