import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  Max,
  ValidateNested,
} from 'class-validator';
import { VOICES, type Voice } from './dimensions';
import { AgentId } from './rules';
import { createValidated } from './validation';

// The persona's wire: `dirigent.admin.persona.*` and `dirigent.router.evt.persona.*`
// (docs/architecture.md, "Persona").

/** A closed range `[lo, hi]`. */
export type PersonaRange = [number, number];

/**
 * A built-in agent's persona: the constraint surface the router's gates and scores and the
 * synthesizer's instructions read (the D.I.T. seed's "Personality"), never prose inlined
 * in a prompt. Versioned: every change writes the next version.
 */
export interface Persona {
  agentId: string;
  version: number;
  /** `eligible` empty: every voice; `never` always gated out. */
  voices: { eligible: Voice[]; never: Voice[] };
  bannedPhrases: string[];
  neverDo: string[];
  /** 0 (casual, calm) .. 1 (formal, high-energy). */
  toneBounds?: { formality: PersonaRange; energy: PersonaRange };
  /** Multipliers over each disposition's own weight (absent: 1). */
  dispositionWeights: Record<string, number>;
  learning: { enabled: boolean; rate: number; bounds: PersonaRange };
}

/** The persona's content: everything but who and which version. */
export type PersonaContent = Omit<Persona, 'agentId' | 'version'>;

/** Envelope types of the persona events. */
export const PersonaEventTypes = {
  changed: 'persona.changed',
  weightsAdjusted: 'persona.weights.adjusted',
} as const;

export const PERSONA_CAUSES = ['seed', 'admin', 'learning', 'rollback'] as const;
export type PersonaCause = (typeof PERSONA_CAUSES)[number];

const voice = () =>
  IsIn(VOICES, { each: true, message: `each of $property must be one of: ${VOICES.join(', ')}` });
const range = () => [
  IsArray(),
  ArrayMinSize(2, { message: '$property must be [lo, hi]' }),
  ArrayMaxSize(2, { message: '$property must be [lo, hi]' }),
  IsNumber({}, { each: true, message: '$property must hold two numbers' }),
];
const Range =
  (): PropertyDecorator =>
  (target, key): void => {
    for (const d of range()) d(target, key);
  };

export class PersonaVoicesPatch {
  @IsOptional() @IsArray() @ArrayMaxSize(20) @voice() eligible?: (typeof VOICES)[number][];
  @IsOptional() @IsArray() @ArrayMaxSize(20) @voice() never?: (typeof VOICES)[number][];
}

export class PersonaToneBoundsPatch {
  @IsOptional() @Range() formality?: [number, number];
  @IsOptional() @Range() energy?: [number, number];
}

export class PersonaLearningPatch {
  @IsOptional() @IsBoolean() enabled?: boolean;
  @IsOptional() @IsNumber() @Min(0.000001) @Max(1) rate?: number;
  @IsOptional() @Range() bounds?: [number, number];
}

export class PersonaGetRequest {
  @AgentId() agentId: string;
  static create(input: unknown) {
    return createValidated(PersonaGetRequest, input);
  }
}

/** `dirigent.admin.persona.upsert`: merged over the active version, written as the next. */
export class PersonaUpsertRequest {
  @AgentId() agentId: string;
  @IsOptional() @ValidateNested() @Type(() => PersonaVoicesPatch) voices?: PersonaVoicesPatch;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  bannedPhrases?: string[];
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  neverDo?: string[];
  /** `null` removes the bounds. */
  @IsOptional()
  @ValidateNested()
  @Type(() => PersonaToneBoundsPatch)
  toneBounds?: PersonaToneBoundsPatch | null;
  @IsOptional() @IsObject() dispositionWeights?: Record<string, number>;
  @IsOptional()
  @ValidateNested()
  @Type(() => PersonaLearningPatch)
  learning?: PersonaLearningPatch;
  static create(input: unknown) {
    return createValidated(PersonaUpsertRequest, input);
  }
}

export class PersonaRollbackRequest {
  @AgentId() agentId: string;
  @IsInt() @Min(1) version: number;
  static create(input: unknown) {
    return createValidated(PersonaRollbackRequest, input);
  }
}

/** `dirigent.admin.persona.history`: versions with their weights, and the signals that moved them. */
export class PersonaHistoryRequest {
  @AgentId() agentId: string;
  @IsOptional() @IsInt() @Min(1) @Max(1000) limit?: number;
  static create(input: unknown) {
    return createValidated(PersonaHistoryRequest, input);
  }
}

export class PersonaListRequest {
  /** Optional filter (a class without a validated property fails `forbidUnknownValues`). */
  @IsOptional() @AgentId() agentId?: string;
  static create(input: unknown) {
    return createValidated(PersonaListRequest, input);
  }
}

export interface PersonaVersionInfo {
  version: number;
  /** ISO-8601 */
  at: string;
  cause: PersonaCause;
  /** What caused it: the message id of a learning signal, the version a rollback restored. */
  causeId?: string;
}

export interface PersonaVersionsResult {
  versions: PersonaVersionInfo[];
}

/** A learning signal that moved (or, at a bound or frozen, did not move) a weight. */
export interface PersonaSignalView {
  messageId: string;
  /** `reaction:<userId>:<emoji>` or `reply:<messageId>`. */
  signal: string;
  polarity: 'positive' | 'negative';
  dispositionId: string;
  from: number;
  to: number;
  /** The version it wrote; absent when the weight did not move. */
  version?: number;
  at: string;
}

export interface PersonaHistoryResult {
  agentId: string;
  versions: (PersonaVersionInfo & { dispositionWeights: Record<string, number> })[];
  signals: PersonaSignalView[];
}

/** `dirigent.router.evt.persona.changed` */
export interface PersonaChangedEvent {
  agentId: string;
  version: number;
  previousVersion: number | null;
  cause: Exclude<PersonaCause, 'seed'>;
  changes: Record<string, { from: unknown; to: unknown }>;
}

/** `dirigent.router.evt.persona.weights.adjusted` */
export interface PersonaWeightsAdjustedEvent {
  agentId: string;
  version: number;
  dispositionId: string;
  from: number;
  to: number;
  polarity: 'positive' | 'negative';
  /** The message id of the built-in agent's message the signal answered. */
  cause: string;
  signal: string;
}
