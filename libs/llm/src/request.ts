import { z } from 'zod';

const textPart = z.object({ type: z.literal('text'), text: z.string() }).passthrough();
const imagePart = z
  .object({
    type: z.literal('image_url'),
    image_url: z.object({ url: z.string().min(1), detail: z.string().optional() }).passthrough(),
  })
  .passthrough();
const contentPart = z.discriminatedUnion('type', [textPart, imagePart]);
const userContent = z.union([z.string(), z.array(contentPart).min(1)]);
const textContent = z.union([z.string(), z.array(textPart)]);

const toolCall = z
  .object({
    id: z.string().min(1),
    type: z.literal('function'),
    function: z.object({ name: z.string().min(1), arguments: z.string() }).passthrough(),
  })
  .passthrough();

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: textContent, name: z.string().optional() }),
  z.object({ role: z.literal('developer'), content: textContent, name: z.string().optional() }),
  z.object({ role: z.literal('user'), content: userContent, name: z.string().optional() }),
  z.object({
    role: z.literal('assistant'),
    content: textContent.nullable().optional(),
    tool_calls: z.array(toolCall).optional(),
    name: z.string().optional(),
    refusal: z.string().nullable().optional(),
  }),
  z.object({ role: z.literal('tool'), content: textContent, tool_call_id: z.string().min(1) }),
]);

const tool = z
  .object({
    type: z.literal('function'),
    function: z
      .object({
        name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -'),
        description: z.string().optional(),
        parameters: z.record(z.unknown()).optional(),
        strict: z.boolean().nullable().optional(),
      })
      .passthrough(),
  })
  .passthrough();

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) }),
]);

const positiveInt = z.number().int().positive();

/** The OpenAI chat request fields the gateway understands; other fields pass through to OpenAI upstreams. */
export const chatRequestSchema = z
  .object({
    model: z.string().min(1).max(200),
    messages: z.array(message).min(1),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
    max_tokens: positiveInt.nullable().optional(),
    max_completion_tokens: positiveInt.nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    n: z.literal(1).nullable().optional(),
    stop: z
      .union([z.string(), z.array(z.string()).max(4)])
      .nullable()
      .optional(),
    tools: z.array(tool).optional(),
    tool_choice: toolChoice.optional(),
    parallel_tool_calls: z.boolean().optional(),
    user: z.string().optional(),
  })
  .passthrough();

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ChatMessage = ChatRequest['messages'][number];
export type ChatTool = NonNullable<ChatRequest['tools']>[number];

export const embeddingsRequestSchema = z
  .object({
    model: z.string().min(1).max(200),
    input: z.union([
      z.string(),
      z.array(z.string()).min(1).max(2048),
      z.array(z.number().int()).min(1),
      z.array(z.array(z.number().int()).min(1)).min(1).max(2048),
    ]),
    encoding_format: z.enum(['float', 'base64']).optional(),
    dimensions: positiveInt.max(8192).optional(),
    user: z.string().optional(),
  })
  .passthrough();

export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;

/** The first invalid field of a request, in OpenAI's `param` notation (`messages[0].role`). */
export interface FieldProblem {
  field: string;
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: FieldProblem };

function fieldName(path: (string | number)[]): string {
  return path.reduce<string>(
    (acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p),
    '',
  );
}

function parseWith<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, body: unknown): Parsed<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, problem: { field: '(body)', message: 'body must be a JSON object' } };
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  // Prefer the deepest issue: a union failure on `messages[0]` hides which field was wrong.
  const issue = [...parsed.error.issues].sort((a, b) => b.path.length - a.path.length)[0];
  const field = fieldName(issue.path) || '(body)';
  const message =
    issue.code === 'invalid_union_discriminator' || issue.code === 'invalid_union'
      ? `${field}: ${issue.message}`
      : `${field}: ${issue.message.toLowerCase()}`;
  return { ok: false, problem: { field, message } };
}

/**
 * Validates an OpenAI chat completion request; a failure names the field.
 *
 * @example
 * const r = parseChatRequest({ model: 'purpose:agent', messages: [] });
 * // r.ok === false; r.problem.field === 'messages'
 */
export function parseChatRequest(body: unknown): Parsed<ChatRequest> {
  return parseWith(chatRequestSchema, body);
}

/** Validates an OpenAI embeddings request; a failure names the field. */
export function parseEmbeddingsRequest(body: unknown): Parsed<EmbeddingsRequest> {
  return parseWith(embeddingsRequestSchema, body);
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
