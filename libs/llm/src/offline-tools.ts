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

const clip = (s: string, max: number) => s.trim().slice(0, max).trim();

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
 * message (`roll 2d6`, `open a poll …`, `open a thread …`, `pin that`, `restructure the
 * server: …`, which becomes a proposal the moderators approve) becomes the matching
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
  const restructure = RESTRUCTURE.exec(message);
  if (restructure && offered.has('propose_restructure'))
    return { name: 'propose_restructure', arguments: restructureOf(message, restructure[1]) };
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
