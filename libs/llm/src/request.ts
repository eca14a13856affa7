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
  return parseWith(ChatRequestBody, body, chatShape);
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
