import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import { SNOWFLAKE_PATTERN, Snowflake } from './rules';
import { createValidated } from './validation';

/** A date-time property that may not be earlier than the named one (when both are dates). */
function NotBefore(other: string) {
  return (target: object, property: string) =>
    registerDecorator({
      name: 'notBefore',
      target: target.constructor,
      propertyName: property,
      constraints: [other],
      options: { message: `$property must not be before ${other}` },
      validator: {
        validate(value: unknown, args: ValidationArguments) {
          const from = Date.parse(String((args.object as Record<string, unknown>)[other]));
          const to = Date.parse(String(value));
          return Number.isNaN(from) || Number.isNaN(to) || to >= from;
        },
      },
    });
}

// Memory's wire: `dirigent.memory.*` (docs/architecture.md, "Memory").

/** The D.I.T. context lenses; `dirigent.memory.context` refuses any other strategy. */
export const CONTEXT_STRATEGIES = [
  'none',
  'narrow-live',
  'live',
  'live+dossiers',
  'live+lore',
  'live+lore+dossiers',
  'archive-topic-deep',
  'archive-person-deep',
  'epochs-only',
  'time-shifted',
  'cross-channel-similar',
  'contrasting',
  'serendipity',
  'unanswered',
  'bot-history',
  'callback-primed',
  'full-rich',
] as const;
export type ContextStrategy = (typeof CONTEXT_STRATEGIES)[number];

/**
 * The layers `Subjects.memory.search` can be asked for (`@dirigent/memory-domain` reads them
 * as `SEARCH_LAYERS`).
 */
export const MEMORY_SEARCH_LAYERS = [
  'archive',
  'highlights',
  'epochs',
  'lore',
  'dossiers',
] as const;
export type MemorySearchLayer = (typeof MEMORY_SEARCH_LAYERS)[number];

/** Why a moment was kept (`@dirigent/memory-domain` reads them as `HIGHLIGHT_KINDS`). */
export const MEMORY_HIGHLIGHT_KINDS = [
  'manual',
  'reaction',
  'replied',
  'quote',
  'self-disclosure',
  'callback',
  'last-word',
  'scored',
] as const;
export type MemoryHighlightKind = (typeof MEMORY_HIGHLIGHT_KINDS)[number];

/** `k` of a search: 8 unless asked, never more than this. */
export const MEMORY_SEARCH_K = { default: 8, max: 50 } as const;

/** Envelope types of memory's events and timer commands. */
export const MemoryEventTypes = {
  epochClosed: 'epoch.closed',
  epochCloseDue: 'memory.epoch-close-due',
  redactionDue: 'memory.redaction-due',
  momentsDue: 'memory.moments-due',
} as const;

/**
 * Memory's durable timers, `dirigent.timer.fired.memory.<name>`: a channel's epoch close,
 * a redaction job (a deletion or `forget` reaching every layer), a channel's moment batch.
 */
export const MemoryTimers = {
  epochClose: 'epoch-close',
  redaction: 'redaction',
  moments: 'moments',
} as const;

/** An instant on the wire: ISO-8601 with a real calendar date (no 2026-02-30). */
const Instant = () =>
  IsISO8601({ strict: true }, { message: '$property must be an ISO-8601 date and time' });

/** Text that holds something besides white space. */
const NotBlank = () => Matches(/\S/, { message: '$property must not be blank' });

/**
 * `dirigent.memory.search`. Anything outside the contract is refused, naming the field:
 * `k` outside 1..50, an unknown or repeated layer, `until` before `since`.
 */
export class MemorySearchRequest {
  @Snowflake() guildId: string;
  @IsString() @IsNotEmpty() @NotBlank() @MaxLength(2000) query: string;
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MEMORY_SEARCH_K.max)
  k?: number;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MEMORY_SEARCH_LAYERS.length)
  @ArrayUnique({ message: '$property must not repeat a layer' })
  @IsIn(MEMORY_SEARCH_LAYERS, {
    each: true,
    message: `each of $property must be one of: ${MEMORY_SEARCH_LAYERS.join(', ')}`,
  })
  layers?: MemorySearchLayer[];
  @IsOptional() @Snowflake() channelId?: string;
  /**
   * The channel the answer will be posted in: only what its audience may see is returned.
   * Without it the search is the admin view (the control page); agents and skills always
   * pass it.
   */
  @IsOptional() @Snowflake() forChannelId?: string;
  @IsOptional() @Snowflake() authorId?: string;
  @IsOptional() @Instant() since?: string;
  @IsOptional()
  @Instant()
  @NotBefore('since')
  until?: string;
  static create(input: unknown) {
    return createValidated(MemorySearchRequest, input);
  }
}

export interface MemoryHit {
  layer: MemorySearchLayer;
  id: string;
  channelId?: string;
  authorId?: string;
  messageId?: string;
  text: string;
  /** ISO-8601 */
  at: string;
  score: number;
}
export interface MemorySearchResult {
  hits: MemoryHit[];
}

/** `dirigent.memory.context`. */
export class MemoryContextRequest {
  @Snowflake() guildId: string;
  /** The channel the context is about, and the target the audience rule applies to. */
  @Snowflake() channelId: string;
  /**
   * Where the answer is posted when that is not `channelId` (a summary of another
   * channel): the audience rule applies to it instead. Additive to the part 4 contract.
   */
  @IsOptional() @Snowflake() forChannelId?: string;
  @IsIn(CONTEXT_STRATEGIES, {
    message: `strategy must be one of: ${CONTEXT_STRATEGIES.join(', ')}`,
  })
  strategy: ContextStrategy;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(SNOWFLAKE_PATTERN, {
    each: true,
    message: 'each of $property must be a Discord snowflake',
  })
  presentUserIds?: string[];
  @IsOptional() @Snowflake() focusUserId?: string;
  @IsOptional() @IsString() @MaxLength(2000) topic?: string;
  @IsOptional() @IsInt() @Min(0) @Max(128_000) maxTokens?: number;
  static create(input: unknown) {
    return createValidated(MemoryContextRequest, input);
  }
}

export interface MemoryContextItem {
  id: string;
  channelId?: string;
  authorId?: string;
  messageId?: string;
  text: string;
  at: string;
}
export interface MemoryContextResult {
  strategy: ContextStrategy;
  sections: { layer: string; items: MemoryContextItem[] }[];
  text: string;
  tokens: number;
}

/** `dirigent.memory.dossier.get`. */
export class MemoryDossierRequest {
  @Snowflake() guildId: string;
  @Snowflake() userId: string;
  /**
   * The channel the answer will be posted in: the body and facts are only what its
   * audience may see (a body drawn on a hidden channel gives way to the visible facts).
   * Without it, the admin view. Additive to the part 4 contract.
   */
  @IsOptional() @Snowflake() forChannelId?: string;
  static create(input: unknown) {
    return createValidated(MemoryDossierRequest, input);
  }
}
export interface MemoryDossier {
  userId: string;
  body: string;
  signals: Record<string, unknown>;
  messageCount: number;
  lastSeenAt: string | null;
}

/** `dirigent.memory.epochs.list`. */
export class MemoryEpochsRequest {
  @Snowflake() guildId: string;
  @IsOptional() @Snowflake() channelId?: string;
  @IsOptional() @IsInt() @Min(1) @Max(200) limit?: number;
  static create(input: unknown) {
    return createValidated(MemoryEpochsRequest, input);
  }
}
export interface MemoryEpoch {
  id: string;
  channelId: string;
  startAt: string;
  endAt: string;
  messageCount: number;
  participants: string[];
  summary: string;
  topics: string[];
}

/** `dirigent.memory.highlight.add`: preserve an archived message verbatim. */
export class MemoryHighlightAddRequest {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @Snowflake() messageId: string;
  @IsOptional() @IsIn(MEMORY_HIGHLIGHT_KINDS) kind?: MemoryHighlightKind;
  static create(input: unknown) {
    return createValidated(MemoryHighlightAddRequest, input);
  }
}
export interface MemoryHighlight {
  id: string;
  guildId: string;
  channelId: string;
  messageId: string;
  authorId: string;
  authorName: string | null;
  /** Exactly what was written. */
  rawText: string;
  kind: MemoryHighlightKind;
  at: string;
}

/** `dirigent.memory.forget`: one user's messages, highlights and dossier in a guild. */
export class MemoryForgetRequest {
  @Snowflake() guildId: string;
  @Snowflake() userId: string;
  static create(input: unknown) {
    return createValidated(MemoryForgetRequest, input);
  }
}
export interface MemoryForgetResult {
  removed: number;
}

/** `dirigent.memory.evt.<g>.<c>.epoch.closed` (stream DIRIGENT_MEMORY_EVT). */
export class EpochClosed {
  @IsString() @IsNotEmpty() epochId: string;
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  @IsISO8601() startAt: string;
  @IsISO8601() endAt: string;
  @IsInt() @Min(0) messageCount: number;
  @IsArray() @Matches(SNOWFLAKE_PATTERN, { each: true }) participants: string[];
  @IsString() summary: string;
  @IsArray() @IsString({ each: true }) topics: string[];
  static create(input: unknown) {
    return createValidated(EpochClosed, input);
  }
}

/** The timer command behind an epoch close (internal, on `dirigent.timer.fired.memory.epoch-close`). */
export class EpochCloseDue {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  static create(input: unknown) {
    return createValidated(EpochCloseDue, input);
  }
}

/**
 * The timer command of a redaction job (internal, on `dirigent.timer.fired.memory.redaction`):
 * the job's row in Postgres says what to revisit; the timer fires until it is done.
 */
export class RedactionDue {
  @Snowflake() guildId: string;
  @IsString() @IsNotEmpty() @MaxLength(120) jobId: string;
  static create(input: unknown) {
    return createValidated(RedactionDue, input);
  }
}

/** The timer command of a channel's moment batch (internal, `dirigent.timer.fired.memory.moments`). */
export class MomentsDue {
  @Snowflake() guildId: string;
  @Snowflake() channelId: string;
  static create(input: unknown) {
    return createValidated(MomentsDue, input);
  }
}
