import { createHash } from 'node:crypto';
import { NO_REPLY } from '@dirigent/contracts';
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
const STOP = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have hey hi how i if in ' +
    'into is it its just me my no not of on or our so that the their them then there these they this ' +
    'to too up us was we were what when where which who why will with would you your yours about all ' +
    'any also some than very really like get got okay ok yes yeah one out over more most much should ' +
    "may might let lets let's i'm it's that's don't dont im youre you're we're ever think " +
    'today finally know want going still maybe thing things something anyone everyone please ' +
    'yet nobody said say much here sure hmm good fair point interesting hear others ' +
    "i'd i'll i've you'd you'll we'll we've time"
  ).split(' '),
);

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
    .flatMap((s) => upTo(s.body.split('\n'), key))
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

/**
 * A section's lines up to the message answered (its last occurrence): what follows it in a
 * transcript answers it (another agent's reply to the same message), not memory of anything.
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

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9'-]*/g) ?? []).filter(
    (w) => w.length > 2 && !STOP.has(w),
  );
}

/** Words that ask about memory: they match a line, but never make its topic. */
const ASKING = new Set('decide decided deciding remember remembered recall'.split(' '));

/** Short words a phrase keeps inside it ("a trip to Lisbon"), never at its ends. */
const JOINERS = new Set('a an the to of in for on at with my our his her'.split(' '));

/**
 * The longest phrase of content words (joined by short words like "a" or "to"), as written,
 * with at most `max` content words; the later on a tie. Given the words of a question, the
 * phrase sharing most of them comes first ("started learning pottery", not "live in Porto
 * now", for "what did I start learning?").
 */
function topic(text: string, max = 3, asked?: ReadonlySet<string>): string {
  const words = withoutMentions(text).match(/[A-Za-z0-9][A-Za-z0-9'-]*/g) ?? [];
  const content = (w: string) =>
    w.length > 2 && !STOP.has(w.toLowerCase()) && !ASKING.has(w.toLowerCase());
  const shared = (ws: string[]) => ws.filter((w) => asked?.has(w.toLowerCase())).length;
  let best: string[] = [];
  let bestCount = 0;
  let bestShared = 0;
  let run: string[] = [];
  let count = 0;
  const close = () => {
    while (run.length && !content(run[run.length - 1])) run.pop();
    const s = shared(run);
    if (count && (s > bestShared || (s === bestShared && count >= bestCount))) {
      [best, bestCount, bestShared] = [run, count, s];
    }
    [run, count] = [[], 0];
  };
  for (const w of words) {
    if (content(w) && count < max) {
      run.push(w);
      count++;
    } else if (count && count < max && JOINERS.has(w.toLowerCase())) run.push(w);
    else {
      close();
      if (content(w)) [run, count] = [[w], 1];
    }
  }
  close();
  return best.join(' ');
}

/** "I said", "I told you", "my …": the asker asks about their own words. */
const OWN_WORDS = /\b(i (said|told|mentioned|wrote|asked)|my)\b/i;

/**
 * The memory line sharing the most words with the message (ties: the latest); null if none.
 * A question about the asker's own words ("where I said …") looks at the asker's lines first.
 */
function bestHit(p: ReadPrompt, anyWillDo: boolean, memoryAsk: boolean): Recalled | null {
  const asked = new Set(contentWords(p.message));
  const own = memoryAsk && OWN_WORDS.test(p.message) && p.author;
  let best: Recalled | null = null;
  let bestScore = 0;
  for (const r of p.memory) {
    if (r.who && p.speaker && r.who === p.speaker) continue;
    const overlap = contentWords(r.text).filter((w) => asked.has(w)).length;
    const score = overlap + (own && r.who === p.author ? 2 : 0);
    if (score >= bestScore && (score > 0 || anyWillDo) && topic(r.text)) {
      best = r;
      bestScore = score;
    }
  }
  return best;
}

/**
 * One of `options`, by the message, shifted by the speaker's initial: agents whose names start
 * with different letters (Ada, Basil, Clio, Dit) word one message differently, not in chorus.
 */
function pick<T>(options: readonly T[], o: { message: string; speaker?: string }): T {
  const base = createHash('sha256').update(o.message).digest().readUInt32BE(0);
  const shift = o.speaker ? o.speaker.toLowerCase().charCodeAt(0) : 0;
  return options[(base + shift) % options.length];
}

const GREETING = /^(hi|hey|hello|hiya|yo|good (morning|afternoon|evening))\b/i;
const THANKS = /\b(thanks|thank you|thx|cheers)\b/i;
const QUESTION =
  /\?|^(who|what|when|where|why|how|do|does|did|can|could|is|are|should|would|will)\b/i;
const MEMORY_ASK =
  /\b(remember|recall|remind|earlier|last time|decid|agreed|we said|talked about)/i;
const REMIND = /\bremind (me|us)\b/i;

/** What may stand between "I" and what its speaker did ("I just started …"). */
const ADVERBS = new Set('just also finally recently really now actually still'.split(' '));
/** "I", "I'm", "I've" as the recalled speaker's words, and what they become said of them. */
const FIRST_PERSON: Record<string, string> = { i: '', "i'm": "'re", "i've": "'ve" };

/**
 * Whether the recalled phrase is what its speaker said of themselves ("I just started
 * learning pottery"): the ending their "I" takes said of them ("" for "I", "'re" for "I'm",
 * "'ve" for "I've"), or null. "you said you started learning pottery" reads where "you
 * brought up started learning pottery" did not.
 */
function ofThemselves(text: string, phrase: string): string | null {
  const at = phrase ? text.indexOf(phrase) : -1;
  if (at < 0) return null;
  const before = text.slice(0, at).trim().split(/\s+/);
  const word = (i: number) => (before[before.length - i] ?? '').replace(/’/g, "'").toLowerCase();
  while (before.length && ADVERBS.has(word(1))) before.pop();
  // "I am planning …", "I have moved …": said of them, "'re planning", "'ve moved".
  if (word(2) === 'i' && (word(1) === 'am' || word(1) === 'have')) {
    return word(1) === 'am' ? "'re" : "'ve";
  }
  return word(1) in FIRST_PERSON ? FIRST_PERSON[word(1)] : null;
}

/**
 * What a recalled line says beyond the question (": old lighthouse" for "the venue is the old
 * lighthouse" asked "what did we decide about the venue?"), or '' when it adds nothing or
 * the phrase recalled (`said`) already tells more than the question asked.
 */
function answerIn(hit: Recalled, said: string, asked: ReadonlySet<string>): string {
  if (contentWords(said).some((w) => !asked.has(w))) return '';
  const rest = hit.text.replace(/[A-Za-z0-9][A-Za-z0-9'-]*/g, (w) =>
    asked.has(w.toLowerCase()) ? ' and ' : w,
  );
  const fresh = topic(rest, 3);
  return fresh && !said.includes(fresh) ? `: ${fresh}` : '';
}
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
 * The offline model as a participant: a short reply to the message a prompt answers,
 * grounded in that message and the best memory line it carries, never in the prompt's
 * scaffolding, and never quoting what anyone said (memory is recalled by who and topic).
 * No weights and no randomness: the same request always gets the same reply, and two
 * speakers (named in their system prompts) word it differently.
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
  // Asked, not told: "we decided on the lighthouse" is news, not a question to memory.
  const memoryAsk =
    MEMORY_ASK.test(p.message) && (QUESTION.test(p.message) || REMIND.test(p.message));
  // A memory question recalls only what shares a word with it (or the asker's own words):
  // the latest line at random would answer something nobody asked.
  const hit = bestHit(p, !p.message, memoryAsk);
  const asked = new Set(memoryAsk ? contentWords(p.message) : []);
  const said = hit ? topic(hit.text, 4, asked) : '';
  const self = hit?.who ? ofThemselves(hit.text, said) : null;
  const you = hit?.who === p.author;
  const who = !hit?.who
    ? 'we had'
    : self !== null
      ? `${you ? 'you' : hit.who} said ${you ? 'you' : 'they'}${self}`
      : `${you ? 'you' : hit.who} brought up`;
  const recall = hit ? `${who} ${said}${memoryAsk ? answerIn(hit, said, asked) : ''}` : '';
  const by = { message: p.message, speaker: p.speaker };
  if (!p.message) return recall ? `Thinking back: ${recall}.` : NO_REPLY;
  if (GREETING.test(p.message) && !QUESTION.test(p.message.replace(GREETING, ''))) {
    return pick(
      [
        `Hey${to}! Good to see you.`,
        `Hi${to}, welcome in.`,
        `Hello${to}! What's up?`,
        `Hey${to}, glad you're here.`,
      ],
      by,
    );
  }
  if (THANKS.test(p.message))
    return pick([`Anytime${to}.`, 'Glad it helped.', 'Happy to help.', 'No problem at all.'], by);
  // What the message is about, never the speaker itself ("the snacks are on Ada" to Ada).
  const about = topic(
    p.speaker
      ? p.message.replace(new RegExp(`\\b${p.speaker.replace(/\W/g, '')}\\b`, 'gi'), ' and ')
      : p.message,
  );
  if (memoryAsk) {
    return recall
      ? pick(
          [
            `If I remember right, ${recall}.`,
            `Last I have is that ${recall}.`,
            `From what I recall, ${recall}.`,
            `I think ${recall}.`,
          ],
          by,
        )
      : pick(
          [
            "I don't have anything on that in memory yet.",
            'Nothing comes to mind on that yet.',
            "I can't find that in what I remember.",
            "That one isn't in my memory yet.",
          ],
          by,
        );
  }
  if (QUESTION.test(p.message)) {
    return recall
      ? pick(
          [
            `Good question. From memory: ${recall}.`,
            `As far as I recall, ${recall}.`,
            `Not sure, but I think ${recall}.`,
            `If it helps: ${recall}.`,
          ],
          by,
        )
      : pick(
          about
            ? [
                `Good question about ${about}. I don't know yet; what do you think?`,
                `Not sure about ${about} yet; nobody has said much on it here.`,
                `Hmm, ${about}. I'd like to hear what the others think.`,
                `Open question on ${about}; anyone here know?`,
              ]
            : [
                "Good question. I don't know yet; what do you think?",
                "I'm not sure; anyone?",
                'No idea yet, honestly.',
                'Hmm, hard to say.',
              ],
          by,
        );
  }
  return recall
    ? pick(
        [
          `That ties back to when ${recall}.`,
          `Makes sense; ${recall} earlier, too.`,
          `Reminds me: ${recall}.`,
          `Right, and earlier ${recall}.`,
        ],
        by,
      )
    : pick(
        about
          ? [
              `Interesting point about ${about}.`,
              `Fair point on ${about}.`,
              `I hear you on ${about}.`,
              `Noted on ${about}.`,
            ]
          : ['Fair enough.', 'I hear you.', 'Makes sense.', 'Got it.'],
        by,
      );
}
