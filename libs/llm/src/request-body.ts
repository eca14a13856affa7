import { Transform, Type } from 'class-transformer';
import {
  ArrayMinSize,
  Equals,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { isRecord, Optional, Satisfies } from './validation';

const isString = (v: unknown): v is string => typeof v === 'string';
const isTextPart = (p: unknown) => isRecord(p) && p.type === 'text' && isString(p.text);
const isImagePart = (p: unknown) =>
  isRecord(p) &&
  p.type === 'image_url' &&
  isRecord(p.image_url) &&
  isString(p.image_url.url) &&
  p.image_url.url.length > 0 &&
  (p.image_url.detail === undefined || isString(p.image_url.detail));
const isTextContent = (v: unknown) => isString(v) || (Array.isArray(v) && v.every(isTextPart));
const isUserContent = (v: unknown) =>
  isString(v) ||
  (Array.isArray(v) && v.length > 0 && v.every((p) => isTextPart(p) || isImagePart(p)));
const TextContent = () => Satisfies(isTextContent, 'must be a string or an array of text parts');
const isInt = (v: unknown) => Number.isInteger(v);

class ToolCallFunctionBody {
  @IsString() @MinLength(1) name: string;
  @IsString() arguments: string;
}

class ToolCallBody {
  @IsString() @MinLength(1) id: string;
  @Equals('function') type: string;
  @IsObject() @ValidateNested() @Type(() => ToolCallFunctionBody) function: ToolCallFunctionBody;
}

export const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

class UnknownRoleMessage {
  @IsIn(ROLES) role: string;
}

class SystemMessage {
  @IsIn(['system', 'developer']) role: string;
  @TextContent() content: unknown;
  @Optional() @IsString() name?: string;
}

class UserMessage {
  @Equals('user') role: string;
  @Satisfies(isUserContent, 'must be a string or a non-empty array of text and image_url parts')
  content: unknown;
  @Optional() @IsString() name?: string;
}

class AssistantMessage {
  @Equals('assistant') role: string;
  @IsOptional() @TextContent() content?: unknown;
  @Optional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ToolCallBody)
  tool_calls?: ToolCallBody[];
  @Optional() @IsString() name?: string;
  @IsOptional() @IsString() refusal?: string | null;
}

class ToolMessage {
  @Equals('tool') role: string;
  @TextContent() content: unknown;
  @IsString() @MinLength(1) tool_call_id: string;
}

const MESSAGE_CLASSES: Record<(typeof ROLES)[number], new () => object> = {
  system: SystemMessage,
  developer: SystemMessage,
  user: UserMessage,
  assistant: AssistantMessage,
  tool: ToolMessage,
};

/** Each message as the class of its role (a union class-transformer cannot pick by itself). */
function asMessages(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((m: unknown) => {
    if (!isRecord(m)) return m;
    const cls = MESSAGE_CLASSES[m.role as (typeof ROLES)[number]] ?? UnknownRoleMessage;
    return plainToInstance(cls, m);
  });
}

class StreamOptionsBody {
  @Optional() @IsBoolean() include_usage?: boolean;
}

class ToolFunctionBody {
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be 1-64 letters, digits, _ or -' })
  name: string;
  @Optional() @IsString() description?: string;
  @Optional() @IsObject() parameters?: Record<string, unknown>;
  @IsOptional() @IsBoolean() strict?: boolean | null;
}

class ToolBody {
  @Equals('function') type: string;
  @IsObject() @ValidateNested() @Type(() => ToolFunctionBody) function: ToolFunctionBody;
}

const isToolChoice = (v: unknown) =>
  v === 'none' ||
  v === 'auto' ||
  v === 'required' ||
  (isRecord(v) &&
    v.type === 'function' &&
    isRecord(v.function) &&
    isString(v.function.name) &&
    v.function.name.length > 0);

const PositiveInt = () => (target: object, key: string) => {
  IsInt()(target, key);
  IsPositive()(target, key);
};

/** The OpenAI chat request fields the gateway understands; any other field is tolerated. */
export class ChatRequestBody {
  @IsString() @Length(1, 200) model: string;

  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Transform(({ obj }) => asMessages((obj as Record<string, unknown>).messages))
  messages: unknown[];

  @Optional() @IsBoolean() stream?: boolean;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => StreamOptionsBody)
  stream_options?: StreamOptionsBody | null;

  @IsOptional() @PositiveInt() max_tokens?: number | null;
  @IsOptional() @PositiveInt() max_completion_tokens?: number | null;
  @IsOptional() @IsNumber() @Min(0) @Max(2) temperature?: number | null;
  @IsOptional() @IsNumber() @Min(0) @Max(1) top_p?: number | null;
  @IsOptional() @Equals(1) n?: number | null;

  @IsOptional()
  @Satisfies(
    (v) => isString(v) || (Array.isArray(v) && v.length <= 4 && v.every(isString)),
    'must be a string or up to 4 strings',
  )
  stop?: string | string[] | null;

  @Optional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ToolBody)
  tools?: ToolBody[];

  @Optional()
  @Satisfies(isToolChoice, "must be 'none', 'auto', 'required' or a function")
  tool_choice?: unknown;

  @Optional() @IsBoolean() parallel_tool_calls?: boolean;
  @Optional() @IsString() user?: string;
}

const isEmbeddingInput = (v: unknown) =>
  isString(v) ||
  (Array.isArray(v) &&
    v.length > 0 &&
    ((v.length <= 2048 && v.every(isString)) ||
      v.every(isInt) ||
      (v.length <= 2048 && v.every((a) => Array.isArray(a) && a.length > 0 && a.every(isInt)))));

/** The OpenAI embeddings request fields the gateway understands; any other field is tolerated. */
export class EmbeddingsRequestBody {
  @IsString() @Length(1, 200) model: string;

  @Satisfies(
    isEmbeddingInput,
    'must be a string, 1-2048 strings, token ids or 1-2048 arrays of token ids',
  )
  input: unknown;

  @Optional() @IsIn(['float', 'base64']) encoding_format?: string;
  @Optional() @PositiveInt() @Max(8192) dimensions?: number;
  @Optional() @IsString() user?: string;
}
