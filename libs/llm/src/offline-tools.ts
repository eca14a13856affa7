import { contentText, type ChatRequest } from './request';
import { readPrompt } from './offline-reply';

/** A tool call the offline model makes: the tool and its arguments. */
export interface OfflineToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

const DICE = /\broll(?:\s+(?:a|me|us|the))?\s+((?:\d*d\d+)(?:\s*[+-]\s*(?:\d*d\d+|\d+))*)/i;
const POLL =
  /\b(?:open|start|make|create|run)\s+(?:us\s+)?(?:a\s+)?poll\b[\s:,-]*(?:(?:about|on|for)\b\s*)?(.*)$/i;
const THREAD =
  /\b(?:open|start|make|create|spin up)\s+(?:us\s+)?(?:a\s+)?thread\b[\s:,-]*(?:(?:about|on|for|called|named)\b\s*)?(.*)$/i;
const PIN = /\bpin\s+(?:that|this|it)\b/i;
const RESTRUCTURE =
  /\b(?:restructure|reorgani[sz]e)\b(?:\s+(?:the|our|this)\s+(?:server|guild|channels))?[\s:,-]*(.*)$/i;

// Utility skills: a plain request names the skill's input (a word, a place, a time).
const DEFINE =
  /\b(?:define|(?:the\s+)?(?:definition|meaning)\s+of)\b[\s:]*["'“]?([\p{L}][\p{L}' -]{0,60}?)["'”]?\s*(?:[?.!,]|$)|\bwhat\s+does\s+["'“]?([\p{L}][\p{L}' -]{0,60}?)["'”]?\s+mean\b/iu;
const WEATHER =
  /\b(?:weather|forecast)\b(?:\s+(?:like|forecast|today|tomorrow|now))*\s+(?:in|for|at)\s+([^?!.,;]{1,100})/i;
const GIF =
  /(?:\b(?:send|post|find|show|give|drop|get)\s+(?:me\s+|us\s+)?(?:a\s+)?gif\b|^gif\b)\s*(?:of|for|about|with|:)?\s*([^?!.]{1,100})/i;
const REMIND = /\bremind\s+(me|us|everyone|everybody|all of us|the channel)\b[\s,:]*(.*)$/i;
/** Words a reminder's time is said with: without one, "remind me what we said" is a question. */
const WHEN =
  /\b(?:in\s+(?:a|an|half\s+an|\d+)\s+\w+|tomorrow|tonight|today|this\s+(?:morning|afternoon|evening)|next\s+\w+|(?:mon|tues|wednes|thurs|fri|satur|sun)day|\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|noon|midnight)\b/i;
const CLOCK = String.raw`(?:\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|noon|midnight)`;
const TIME = new RegExp(
  String.raw`\b(?:what(?:'s|\s+is)?\s+(?:the\s+)?time\s+(?:is\s+it\s+)?in\s+[^?!.]+|time\s+in\s+[A-Z][^?!.]*|(?:convert\s+)?${CLOCK}\s+(?:in\s+)?[A-Z][\w'./ -]*?\s+(?:in|to)\s+[A-Z][^?!.]*)`,
  'i',
);
const CREATE_CHANNEL =
  /\b(?:create|make|open|add|set\s+up|start)\s+(?:us\s+)?(?:a\s+)?(?:new\s+)?(?:text\s+)?channel\b(?:\s+(?:called|named|for))?\s+#?([\w-]{1,100})/i;
const ARCHIVE = /\barchive\s+(?:the\s+)?(?:channel\s+)?#([\w-]{1,100})/i;
const CREATE_ROLE =
  /\b(?:create|make|add|set\s+up)\s+(?:us\s+)?(?:a\s+)?(?:new\s+)?role\b(?:\s+(?:called|named|for))?\s+(?:the\s+)?@?([\w-]{1,100})/i;

const clip = (s: string, max: number) => s.trim().slice(0, max).trim();

/** The utility skills' calls a message asks for plainly, in the order they are tried. */
function utilityCall(message: string, offered: Set<string>): OfflineToolCall | null {
  const remind = REMIND.exec(message);
  if (remind && offered.has('remind') && WHEN.test(remind[2])) {
    const target = /^me$/i.test(remind[1]) ? 'me' : 'channel';
    return { name: 'remind', arguments: { when: clip(remind[2], 200), target } };
  }
  const time = TIME.exec(message);
  if (time && offered.has('time')) return { name: 'time', arguments: { text: clip(time[0], 200) } };
  const define = DEFINE.exec(message);
  const term = define && clip((define[1] ?? define[2] ?? '').replace(/^(?:the|a|an)\s+/i, ''), 80);
  if (term && offered.has('define')) return { name: 'define', arguments: { term } };
  const weather = WEATHER.exec(message);
  if (weather && offered.has('weather'))
    return { name: 'weather', arguments: { place: clip(weather[1], 100) } };
  const gif = GIF.exec(message);
  if (gif && clip(gif[1], 100) && offered.has('gif'))
    return {
      name: 'gif',
      arguments: { query: clip(gif[1].replace(/^(?:a|an|some)\s+/i, ''), 100) },
    };
  return null;
}

/** `pizza or tacos?`, `lunch? pizza, tacos`, `lunch: pizza / tacos` → question and options. */
export function pollOf(text: string): { question: string; options: string[] } {
  const rest = text.trim().replace(/[.!]+$/, '');
  const split = (s: string) =>
    s
      .split(/,|\s+or\s+|\//i)
      .map((o) => clip(o.replace(/[?]+$/, ''), 55))
      .filter(Boolean);
  let question = rest;
  let options: string[] = [];
  const q = rest.indexOf('?');
  const colon = rest.indexOf(':');
  if (q >= 0 && rest.slice(q + 1).trim()) {
    question = rest.slice(0, q + 1);
    options = split(rest.slice(q + 1));
  } else if (colon > 0) {
    question = `${rest.slice(0, colon).trim()}?`;
    options = split(rest.slice(colon + 1));
  } else {
    options = split(rest);
    if (!question.endsWith('?')) question += '?';
  }
  if (options.length < 2) options = ['Yes', 'No'];
  return { question: clip(question, 300) || 'Quick poll?', options: options.slice(0, 10) };
}

/** `restructure the server: merge #a into #b, archive #c` → a summary and its steps. */
export function restructureOf(message: string, rest: string): { summary: string; steps: string[] } {
  const steps = rest
    .split(/[;,\n]|\s+and\s+then\s+|\s+then\s+/i)
    .map((x) => clip(x.replace(/[.!]+$/, ''), 300))
    .filter(Boolean)
    .slice(0, 15);
  return {
    summary: clip(message, 1000),
    steps: steps.length ? steps : [clip(message, 300)],
  };
}

/** The ids the router's prompt lists under `## message ids`. */
function messageIds(req: ChatRequest): { replyTo?: string; before?: string } {
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  const text = lastUser ? contentText(lastUser.content) : '';
  return {
    replyTo: /^it replies to: (\d+)/m.exec(text)?.[1],
    before: /^the message before it: (\d+)/m.exec(text)?.[1],
  };
}

/**
 * The offline model's one honest tool use: with no model configured, a plain request in the
 * message (`roll 2d6`, `open a poll …`, `open a thread …`, `pin that`, `create a channel
 * called x`, `archive #x`, `make a role for the x`, `restructure the server: …`, the last
 * four proposals the moderators approve) becomes the matching
 * skill's call when the request offers that tool. Null when nothing matches, when tools are
 * off (`tool_choice: 'none'`), or when this turn has already called a tool.
 */
export function offlineToolCall(req: ChatRequest): OfflineToolCall | null {
  const offered = new Set((req.tools ?? []).map((t) => t.function?.name));
  if (!offered.size || req.tool_choice === 'none') return null;
  if (req.messages.some((m) => m.role === 'tool')) return null;
  const message = readPrompt(req).message;
  if (!message) return null;
  const dice = DICE.exec(message);
  if (dice && offered.has('dice'))
    return { name: 'dice', arguments: { notation: dice[1].replace(/\s+/g, '') } };
  const poll = POLL.exec(message);
  if (poll && offered.has('poll')) return { name: 'poll', arguments: pollOf(poll[1]) };
  const thread = THREAD.exec(message);
  if (thread && offered.has('create_thread')) {
    const name = clip(thread[1].replace(/[.!?]+$/, ''), 100) || 'side conversation';
    return { name: 'create_thread', arguments: { name } };
  }
  if (PIN.test(message) && offered.has('pin_moment')) {
    const ids = messageIds(req);
    const messageId = ids.replyTo ?? ids.before;
    if (messageId) return { name: 'pin_moment', arguments: { messageId } };
  }
  const utility = utilityCall(message, offered);
  if (utility) return utility;
  // A restructure names its steps: asked for by that word, none is taken for a request of its own.
  const restructure = RESTRUCTURE.exec(message);
  if (restructure && offered.has('propose_restructure'))
    return { name: 'propose_restructure', arguments: restructureOf(message, restructure[1]) };
  const channel = CREATE_CHANNEL.exec(message);
  if (channel && offered.has('create_channel'))
    return { name: 'create_channel', arguments: { name: channel[1].toLowerCase() } };
  const archive = ARCHIVE.exec(message);
  if (archive && offered.has('propose_restructure')) {
    const step = `archive #${archive[1].toLowerCase()}`;
    return {
      name: 'propose_restructure',
      arguments: { summary: clip(message, 1000), steps: [step] },
    };
  }
  const role = CREATE_ROLE.exec(message);
  if (role && offered.has('manage_roles'))
    return { name: 'manage_roles', arguments: { action: 'create', roleName: role[1] } };
  return null;
}

interface ToolOutcome {
  status?: string;
  reason?: string;
  result?: Record<string, unknown>;
  error?: string;
}

/** How one tool call went, in a few words. */
function said(name: string, args: Record<string, unknown>, out: ToolOutcome): string {
  if (out.error) return `I couldn't do that (${out.error}).`;
  if (out.status === 'refused')
    return `Sorry, I won't do that for you: ${out.reason ?? 'not allowed'}.`;
  if (out.status === 'proposed')
    return "I've asked the moderators to approve that in the mod channel.";
  const r = out.result ?? {};
  switch (name) {
    case 'dice': {
      const rolls = (r.rolls as number[] | undefined) ?? [];
      return `🎲 ${String(r.notation ?? args.notation)}: ${rolls.join(', ')} → **${String(r.total)}**`;
    }
    case 'poll':
      return `Poll's up: ${String(r.question ?? args.question)}`;
    case 'create_thread':
      return r.threadId ? `Opened a thread: <#${String(r.threadId)}>` : 'Opened a thread.';
    case 'pin_moment':
      return 'Pinned it. 📌';
    case 'define':
    case 'weather':
    case 'gif':
    case 'remind':
    case 'time':
      return utilitySaid(name, r);
    default:
      return 'Done.';
  }
}

const dayOf = (iso: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  }).format(new Date(iso));

/** What a utility skill answered, in a sentence or two (its own note when it had none). */
function utilitySaid(name: string, r: Record<string, unknown>): string {
  const note = (r.note ?? r.reason) as string | undefined;
  if (r.status === 'refused') return `I can't do that here: ${String(r.reason)}.`;
  if (note && r.status) return note;
  switch (name) {
    case 'define': {
      const defs = (r.definitions as { partOfSpeech: string; text: string }[] | undefined) ?? [];
      if (!defs.length) return note ?? "That word isn't in my dictionary.";
      const lines = defs.slice(0, 3).map((d) => `(${d.partOfSpeech}) ${d.text}.`);
      return `**${String(r.term)}**: ${lines.join(' ')}`;
    }
    case 'weather': {
      const cur = r.current as { tempC: number; description: string } | undefined;
      const days =
        (r.days as { date: string; minC: number; maxC: number; description: string }[]) ?? [];
      const next = days
        .map((d) => `${dayOf(d.date)} ${d.minC}–${d.maxC} °C, ${d.description}`)
        .join('; ');
      return `In ${String(r.place)} it's ${cur?.tempC} °C with ${cur?.description} right now.${next ? ` Next days: ${next}.` : ''}`;
    }
    case 'gif':
      return String(r.url);
    case 'remind': {
      const at = new Date(String(r.dueAt));
      const when = `${dayOf(at.toISOString())} at ${at.toISOString().slice(11, 16)} UTC`;
      const who = r.target === 'me' ? 'you' : 'everyone here';
      return `⏰ Okay, I'll remind ${who} on ${when}: ${String(r.text)}.`;
    }
    case 'time':
      return String(r.result);
    default:
      return 'Done.';
  }
}

/**
 * After the tool round: the reply that reports what the tools did (the offline model reads
 * the `tool` messages the router sent back). Null when the request holds no tool result.
 */
export function toolResultReply(req: ChatRequest): string | null {
  const results = new Map<string, ToolOutcome>();
  for (const m of req.messages) {
    if (m.role !== 'tool') continue;
    try {
      results.set(m.tool_call_id, JSON.parse(contentText(m.content)) as ToolOutcome);
    } catch {
      results.set(m.tool_call_id, { error: contentText(m.content).slice(0, 200) });
    }
  }
  if (!results.size) return null;
  const lines: string[] = [];
  for (const m of req.messages) {
    if (m.role !== 'assistant') continue;
    for (const c of m.tool_calls ?? []) {
      const out = results.get(c.id);
      if (!out) continue;
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(c.function.arguments || '{}') as Record<string, unknown>;
      } catch {
        args = {};
      }
      lines.push(said(c.function.name, args, out));
    }
  }
  return lines.join('\n') || null;
}
