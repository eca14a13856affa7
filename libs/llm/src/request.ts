import { ChatRequestBody, EmbeddingsRequestBody } from './request-body';
import { validateFields, isRecord, type Issue } from './validation';

export interface TextPart {
  type: 'text';
  text: string;
  [k: string]: unknown;
}

export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string; [k: string]: unknown };
  [k: string]: unknown;
}

type TextContent = string | TextPart[];

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string; [k: string]: unknown };
  [k: string]: unknown;
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: TextContent; name?: string }
  | { role: 'user'; content: string | (TextPart | ImagePart)[]; name?: string }
  | {
      role: 'assistant';
      content?: TextContent | null;
      tool_calls?: ToolCall[];
      name?: string;
      refusal?: string | null;
    }
  | { role: 'tool'; content: TextContent; tool_call_id: string };

export interface ChatTool {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters?: Record<string, unknown>;
    strict?: boolean | null;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** A validated OpenAI chat request; fields the gateway does not read pass through to OpenAI upstreams. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  n?: 1 | null;
  stop?: string | string[] | null;
  tools?: ChatTool[];
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
  parallel_tool_calls?: boolean;
  user?: string;
  [k: string]: unknown;
}

export interface EmbeddingsRequest {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
  user?: string;
  [k: string]: unknown;
}

/** The first invalid field of a request, in OpenAI's `param` notation (`messages[0].role`). */
export interface FieldProblem {
  field: string;
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: FieldProblem };

function fieldName(path: string[]): string {
  return path.reduce<string>(
    (acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p),
    '',
  );
}

function parseWith<T>(
  cls: new () => object,
  body: unknown,
  shape: (body: Record<string, unknown>) => T,
): Parsed<T> {
  if (!isRecord(body)) {
    return { ok: false, problem: { field: '(body)', message: 'body must be a JSON object' } };
  }
  const found = validateFields(cls, body).issues;
  if (!found.length) return { ok: true, value: shape(body) };
  // The deepest issue names the field best (`messages[0].role` rather than `messages`).
  const issue: Issue = [...found].sort((a, b) => b.path.length - a.path.length)[0];
  const field = fieldName(issue.path) || '(body)';
  return { ok: false, problem: { field, message: `${field}: ${issue.message}` } };
}

const MESSAGE_FIELDS: Record<ChatMessage['role'], string[]> = {
  system: ['role', 'content', 'name'],
  developer: ['role', 'content', 'name'],
  user: ['role', 'content', 'name'],
  assistant: ['role', 'content', 'tool_calls', 'name', 'refusal'],
  tool: ['role', 'content', 'tool_call_id'],
};

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** Unknown fields inside messages, `stream_options` and a `tool_choice` object are dropped. */
function chatShape(body: Record<string, unknown>): ChatRequest {
  const out: Record<string, unknown> = { ...body };
  out.messages = (body.messages as Record<string, unknown>[]).map((m) =>
    pick(m, MESSAGE_FIELDS[m.role as ChatMessage['role']]),
  );
  if (isRecord(body.stream_options))
    out.stream_options = pick(body.stream_options, ['include_usage']);
  const choice = body.tool_choice;
  if (isRecord(choice) && isRecord(choice.function))
    out.tool_choice = { type: choice.type, function: { name: choice.function.name } };
  return out as ChatRequest;
}

/**
 * Validates an OpenAI chat completion request; a failure names the field.
 *
 * @example
 * const r = parseChatRequest({ model: 'purpose:agent', messages: [] });
 * // r.ok === false; r.problem.field === 'messages'
 */
export function parseChatRequest(body: unknown): Parsed<ChatRequest> {
  if (isPlainChat(body)) return { ok: true, value: chatShape(body) };
  return parseWith(ChatRequestBody, body, chatShape);
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isPosInt = (v: unknown) => Number.isInteger(v) && (v as number) > 0;

/** The top-level fields of a plain chat and the one check each must pass (null: see below). */
const PLAIN_FIELDS = new Map<string, (v: unknown) => boolean>([
  ['model', (v) => typeof v === 'string' && v.length >= 1 && v.length <= 200],
  ['messages', (v) => Array.isArray(v) && v.length > 0 && v.every(isPlainMessage)],
  ['stream', (v) => typeof v === 'boolean'],
  ['max_tokens', isPosInt],
  ['max_completion_tokens', isPosInt],
  ['temperature', (v) => isNum(v) && v >= 0 && v <= 2],
  ['top_p', (v) => isNum(v) && v >= 0 && v <= 1],
  ['n', (v) => v === 1],
  ['user', (v) => typeof v === 'string'],
]);

const PLAIN_ROLES = new Set(['system', 'developer', 'user', 'assistant']);

function isPlainMessage(m: unknown): boolean {
  if (!isRecord(m) || typeof m.role !== 'string' || !PLAIN_ROLES.has(m.role)) return false;
  if (typeof m.content !== 'string') return false;
  for (const k in m) if (k !== 'role' && k !== 'content' && k !== 'name') return false;
  return m.name === undefined || typeof m.name === 'string';
}

/**
 * The common request — text messages and the usual sampling fields, each present with a
 * valid non-null value — checked directly. It is exactly what {@link ChatRequestBody}
 * accepts for these fields; anything else (tools, parts, nulls, other fields, any doubt)
 * takes the full validation, which also names the field of an error.
 */
function isPlainChat(body: unknown): body is Record<string, unknown> {
  if (!isRecord(body) || body.model === undefined || body.messages === undefined) return false;
  for (const k in body) {
    const check = PLAIN_FIELDS.get(k);
    if (!check || !check(body[k])) return false;
  }
  return true;
}

/** Validates an OpenAI embeddings request; a failure names the field. */
export function parseEmbeddingsRequest(body: unknown): Parsed<EmbeddingsRequest> {
  return parseWith(EmbeddingsRequestBody, body, (b) => ({ ...b }) as EmbeddingsRequest);
}

/** The text of a message's content, parts joined by newlines (images are skipped). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : ''))
    .filter(Boolean)
    .join('\n');
}
