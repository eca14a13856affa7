import { readFileSync } from 'node:fs';
import { plainToInstance, Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  ArrayMinSize,
  IsUrl,
  Validate,
  ValidatorConstraint,
  validateSync,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { parse as parseYaml } from 'yaml';
import {
  AGENT_ID_PATTERN,
  AGENT_ID_RULE,
  DispositionUpsertRequest,
  fieldErrors,
  PersonaLearningPatch,
  PersonaToneBoundsPatch,
  VOICES,
} from '@dirigent/contracts';
import { BaseConfig, EnvBool, EnvInt, EnvPort, type DerivedConfig } from '@dirigent/service-kit';
import {
  DEFAULT_SPECULATIVE,
  personaProblems,
  seedPersona,
  type AgentPersona,
  type PersonaContent,
  type Voice,
} from '@dirigent/router-domain';
import { GIF_PROVIDERS, isTimeZone, type GifProviderName } from '@dirigent/skills';
import { OrchestratorConfig } from './orchestrator/config';

@ValidatorConstraint({ name: 'ianaTimeZone' })
class IanaTimeZone implements ValidatorConstraintInterface {
  validate(v: unknown) {
    return typeof v === 'string' && isTimeZone(v);
  }
  defaultMessage() {
    return '$property must be an IANA time zone (e.g. Europe/Lisbon)';
  }
}

/** A built-in agent (`agents[]` of DIRIGENT_ROUTER_CONFIG). */
export class RouterAgentConfig {
  @Matches(AGENT_ID_PATTERN, { message: `$property must be ${AGENT_ID_RULE}` }) id: string;
  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: '$property must be a Discord snowflake' })
  discordUserId?: string;
  @IsOptional() @IsString() @MaxLength(100) name?: string;
  @IsOptional()
  @IsArray()
  @IsIn(VOICES, { each: true, message: `each of $property must be one of: ${VOICES.join(', ')}` })
  voices?: Voice[];
  @IsOptional() @IsArray() @IsString({ each: true }) bannedPhrases?: string[];
  @IsOptional() @IsObject() weights?: Record<string, number>;
  @IsOptional() @IsBoolean() orchestrator?: boolean;
  /** Persona seed only (first start): voices never chosen. */
  @IsOptional()
  @IsArray()
  @IsIn(VOICES, { each: true, message: `each of $property must be one of: ${VOICES.join(', ')}` })
  neverVoices?: Voice[];
  /** Persona seed only: the never-do list (`/pattern/` entries are also checked on output). */
  @IsOptional() @IsArray() @IsString({ each: true }) neverDo?: string[];
  /** Persona seed only: `{ formality: [lo, hi], energy: [lo, hi] }`, 0..1. */
  @IsOptional()
  @ValidateNested()
  @Type(() => PersonaToneBoundsPatch)
  toneBounds?: PersonaToneBoundsPatch;
  /** Persona seed only: `{ enabled, rate, bounds }` (default on, 0.05, [0.5, 2]). */
  @IsOptional()
  @ValidateNested()
  @Type(() => PersonaLearningPatch)
  learning?: PersonaLearningPatch;
}

export class SpeculativeConfig {
  @IsOptional() @IsBoolean() enabled = DEFAULT_SPECULATIVE.enabled;
  @IsOptional() @IsInt() @Min(0) quietMs = DEFAULT_SPECULATIVE.quietMs;
  @IsOptional() @IsInt() @Min(0) minSinceBotTurnMs = DEFAULT_SPECULATIVE.minSinceBotTurnMs;
  @IsOptional() @IsInt() @Min(0) activeWithinMs = DEFAULT_SPECULATIVE.activeWithinMs;
  @IsOptional() @IsNumber() @Min(0) @Max(1) minBudgetFraction =
    DEFAULT_SPECULATIVE.minBudgetFraction;
  @IsOptional() @IsNumber() @Min(0) @Max(1) chance = DEFAULT_SPECULATIVE.chance;
}

export class FollowupsConfig {
  @IsOptional() @IsBoolean() enabled = true;
  /** Human messages after the turn after which the conversation has moved on. */
  @IsOptional() @IsInt() @Min(1) movedOnAfter = 6;
  /** A human message or typing this recent means someone is mid-thought. */
  @IsOptional() @IsInt() @Min(0) midThoughtMs = 20_000;
}

/** DIRIGENT_ROUTER_CONFIG (YAML): every key optional but `agents`. */
export class RouterFileConfig {
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => RouterAgentConfig)
  agents: RouterAgentConfig[];
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => DispositionUpsertRequest)
  dispositions: DispositionUpsertRequest[] = [];
  @IsOptional()
  @ValidateNested()
  @Type(() => SpeculativeConfig)
  speculative: SpeculativeConfig = new SpeculativeConfig();
  @IsOptional() @ValidateNested() @Type(() => FollowupsConfig) followups: FollowupsConfig =
    new FollowupsConfig();
  /** The orchestrator's block, validated by its own configuration class. */
  @IsOptional()
  @ValidateNested()
  @Type(() => OrchestratorConfig)
  orchestrator?: OrchestratorConfig;
}

/** The agents when no file is given: one webhook-voiced agent, Dit. */
const DEFAULT_FILE = { agents: [{ id: 'dit', name: 'Dit' }] };

export class RouterConfig extends BaseConfig implements DerivedConfig {
  @EnvPort() ROUTER_PORT = 3003;
  /** Path of the router's YAML file (agents, dispositions, speculative, followups, orchestrator). */
  @IsOptional() @IsString() DIRIGENT_ROUTER_CONFIG?: string;
  /** The directory of the coding agent's per-session work (orchestrator). */
  @IsOptional() @IsString() DIRIGENT_WORKSPACE?: string;
  /** Stochasticity of the disposition sampling (0: always the top score), in hundredths. */
  @EnvInt({ min: 0, max: 300 }) DIRIGENT_ROUTER_TEMPERATURE_PCT = 70;
  /** Time each research persona gets before the synthesizer goes without it. */
  @EnvInt({ min: 100 }) DIRIGENT_ROUTER_PERSONA_TIMEOUT_MS = 8000;
  /** Time allowed for the synthesizer's call through the gateway. */
  @EnvInt({ min: 100 }) DIRIGENT_ROUTER_MODEL_TIMEOUT_MS = 60_000;
  /** Time allowed for memory, coordinator and budget queries. */
  @EnvInt({ min: 50 }) DIRIGENT_ROUTER_QUERY_TIMEOUT_MS = 3000;
  /** Time a skill's Discord action or memory read gets (`skill.invoke`, a model's tool call). */
  @EnvInt({ min: 100 }) DIRIGENT_ROUTER_SKILL_TIMEOUT_MS = 15_000;
  /** Offer the skill catalog to the synthesizer as tools (at most 4 tool rounds a turn). */
  @EnvBool() DIRIGENT_ROUTER_SKILLS = true;
  /** Break a tight top pair of speaking dispositions with purpose `router-classify` (live turns only). */
  @EnvBool() DIRIGENT_ROUTER_TIEBREAK = false;
  /** How long a burst waits for a beat's own message.created before it gives up. */
  @EnvInt({ min: 100 }) DIRIGENT_ROUTER_BEAT_TIMEOUT_MS = 30_000;
  /**
   * How long memory's hit count on the topic is waited for at most: a decision waits until
   * its inputs deadline, the probe goes on for the next decision on the same message.
   */
  @EnvInt({ min: 10 }) DIRIGENT_ROUTER_MEMORY_PROBE_MS = 250;
  /**
   * How long a decision waits for the budget, the channel's members, memory's hit count and
   * the learned adjustments before it goes with what is already known of them (named in its inputs' `late`); the
   * probes go on and serve the next decision.
   */
  @EnvInt({ min: 1 }) DIRIGENT_ROUTER_INPUTS_DEADLINE_MS = 10;
  /** The community's time zone as minutes east of UTC (the hour of day a decision reads). */
  @EnvInt({ min: -720, max: 840 }) DIRIGENT_ROUTER_UTC_OFFSET_MIN = 0;
  /** Learned adjustments halve toward 0 over this long (0: they never decay). */
  @EnvInt({ min: 0 }) DIRIGENT_LEARNING_HALF_LIFE_MS = 14 * 86_400_000;
  /** How many learning signals one member may give in a guild per UTC day. */
  @EnvInt({ min: 1 }) DIRIGENT_LEARNING_DAILY_CAP = 5;
  /**
   * How long after a turn the room is judged: a line nobody engaged with while humans kept
   * talking is `ignored`; a silent or react-only turn is `silent-ok` or `silent-missed`.
   */
  @EnvInt({ min: 1000 }) DIRIGENT_LEARNING_JUDGE_WINDOW_MS = 600_000;
  /** How many human messages in the window count as the room going on. */
  @EnvInt({ min: 1 }) DIRIGENT_LEARNING_JUDGE_MIN_MESSAGES = 3;
  /** How far back a human message quoting or referring back to an agent's line reaches. */
  @EnvInt({ min: 1000 }) DIRIGENT_LEARNING_QUOTE_WINDOW_MS = 21_600_000;
  /** The steward's mod channel, created once per guild (visible to the bot and ManageGuild members). */
  @IsOptional()
  @Matches(/^[a-z0-9_-]{1,100}$/, { message: '$property must be 1-100 of a-z, 0-9, _ or -' })
  DIRIGENT_MOD_CHANNEL_NAME = 'dit-mod';
  /** How long a steward proposal waits for a decision before it expires. */
  @EnvInt({ min: 100 }) DIRIGENT_PROPOSAL_TTL_MS = 86_400_000;
  /** Upkeep: a topic discussed on this many distinct days gets a channel proposed… */
  @EnvInt({ min: 1 }) DIRIGENT_UPKEEP_TOPIC_DAYS = 3;
  /** …when this many members discussed it outside a channel of its own. */
  @EnvInt({ min: 1 }) DIRIGENT_UPKEEP_TOPIC_MEMBERS = 4;
  /** Upkeep: a channel quiet this many days… */
  @EnvInt({ min: 1 }) DIRIGENT_UPKEEP_ARCHIVE_IDLE_DAYS = 30;
  /** …that held this many messages gets its archiving proposed. */
  @EnvInt({ min: 1 }) DIRIGENT_UPKEEP_ARCHIVE_MIN_MESSAGES = 200;
  /** Upkeep: this many members meeting around a topic… */
  @EnvInt({ min: 1 }) DIRIGENT_UPKEEP_ROLE_MEMBERS = 5;
  /** …each for this many days (first to last meeting) get a role proposed. */
  @EnvInt({ min: 1 }) DIRIGENT_UPKEEP_ROLE_DAYS = 21;
  /** How long a rejected (or expired) upkeep proposal is not asked again, in days. */
  @EnvInt({ min: 1 }) DIRIGENT_UPKEEP_REASK_DAYS = 30;
  /** At most one upkeep survey of a guild per this period, armed by its members' messages. */
  @EnvInt({ min: 100 }) DIRIGENT_UPKEEP_SURVEY_MS = 3_600_000;
  /** The role a new proposal's post mentions; unset: the roles holding ManageGuild. */
  @IsOptional()
  @Matches(/^\d{5,25}$/, { message: '$property must be a Discord role id' })
  DIRIGENT_MOD_ROLE_ID?: string;
  /** At most this many proposals pending per guild; a skill asking for more is refused. */
  @EnvInt({ min: 1 }) DIRIGENT_PROPOSALS_PENDING_MAX = 5;
  /** At most this many proposals asked by one member in an hour. */
  @EnvInt({ min: 1 }) DIRIGENT_PROPOSALS_PER_MEMBER_HOUR = 3;
  /** The community's IANA time zone: `remind` and `time` read wall-clock times in it. */
  @IsOptional()
  @Validate(IanaTimeZone)
  DIRIGENT_TIMEZONE = 'UTC';
  /** The `weather` skill's geocoding API (Open-Meteo's shape). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  DIRIGENT_GEOCODING_URL = 'https://geocoding-api.open-meteo.com/v1/search';
  /** The `weather` skill's forecast API (Open-Meteo's shape). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  DIRIGENT_WEATHER_URL = 'https://api.open-meteo.com/v1/forecast';
  /** Time each request of the `weather` and `gif` skills gets before they answer politely. */
  @EnvInt({ min: 100 }) DIRIGENT_UTILITY_TIMEOUT_MS = 5000;
  /** The `gif` skill's provider (`tenor` v2 or `giphy`); off without one and a key. */
  @IsOptional()
  @IsIn(GIF_PROVIDERS, { message: `$property must be one of: ${GIF_PROVIDERS.join(', ')}` })
  DIRIGENT_GIF_PROVIDER?: GifProviderName;
  @IsOptional() @IsString() DIRIGENT_GIF_API_KEY?: string;
  /** Overrides the GIF provider's search endpoint (a proxy, a test's fake). */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  DIRIGENT_GIF_URL?: string;
  file: RouterFileConfig;

  derive(): string[] {
    let raw: unknown = DEFAULT_FILE;
    if (this.DIRIGENT_ROUTER_CONFIG) {
      try {
        raw = parseYaml(readFileSync(this.DIRIGENT_ROUTER_CONFIG, 'utf8'));
      } catch (e) {
        return [`DIRIGENT_ROUTER_CONFIG ${(e as Error).message.split('\n')[0]}`];
      }
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return ['DIRIGENT_ROUTER_CONFIG must hold a YAML mapping'];
    }
    const file = plainToInstance(RouterFileConfig, raw);
    const errors = validateSync(file, { forbidUnknownValues: false });
    if (errors.length) {
      const first = fieldErrors(errors)[0];
      return [`DIRIGENT_ROUTER_CONFIG ${first.field}: ${first.messages[0]}`];
    }
    const ids = new Set<string>();
    for (const a of file.agents) {
      if (ids.has(a.id)) return [`DIRIGENT_ROUTER_CONFIG agents: duplicate id ${a.id}`];
      ids.add(a.id);
    }
    this.file = file;
    for (const { agentId, content } of this.personaSeeds()) {
      const p = personaProblems(content)[0];
      if (p) return [`DIRIGENT_ROUTER_CONFIG agents.${agentId}.${p.field}: ${p.message}`];
    }
    return [];
  }

  /** Each agent's persona as the YAML describes it: version 1, written on its first start only. */
  personaSeeds(): { agentId: string; content: PersonaContent }[] {
    const agents = this.personas();
    return this.file.agents.map((a, i) => ({
      agentId: a.id,
      content: seedPersona(agents[i], {
        neverVoices: a.neverVoices,
        neverDo: a.neverDo,
        toneBounds: a.toneBounds,
        learning: a.learning,
      }),
    }));
  }

  get temperature(): number {
    return this.DIRIGENT_ROUTER_TEMPERATURE_PCT / 100;
  }

  personas(): AgentPersona[] {
    return this.file.agents.map((a) => ({
      id: a.id,
      name: a.name ?? a.id,
      discordUserId: a.discordUserId,
      voices: a.voices,
      bannedPhrases: a.bannedPhrases,
      weights: a.weights,
      orchestrator: a.orchestrator,
    }));
  }
}
