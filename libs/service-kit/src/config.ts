import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import {
  getMetadataStorage,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsString,
  Matches,
  Max,
  Min,
  ValidateIf,
  validateSync,
  type ValidationError,
} from 'class-validator';
import { DEFAULT_NATS_URL } from './embedded';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * An integer variable, e.g. `DIRIGENT_CHECK_WAIT_MS`; a field initializer is its default.
 *
 * @example
 * @EnvInt({ min: 1, max: 256 }) DIRIGENT_COORDINATOR_CONCURRENCY = 16;
 */
export function EnvInt(range: { min?: number; max?: number } = {}): PropertyDecorator {
  const { min, max } = range;
  return applyDecorators(
    Transform(({ value }) =>
      typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value,
    ),
    IsInt({ message: '$property must be an integer' }),
    ...(min === undefined ? [] : [Min(min, { message: `$property must be at least ${min}` })]),
    ...(max === undefined ? [] : [Max(max, { message: `$property must be at most ${max}` })]),
  );
}

/** A TCP port variable such as `TURN_COORDINATOR_PORT` (0 lets the system choose). */
export const EnvPort = (): PropertyDecorator => EnvInt({ min: 0, max: 65535 });

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

/** A boolean variable: true/false, 1/0, yes/no or on/off. */
export function EnvBool(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }) => {
      const v = typeof value === 'string' ? value.trim().toLowerCase() : value;
      return TRUE.includes(v) ? true : FALSE.includes(v) ? false : value;
    }),
    IsBoolean({ message: '$property must be true or false' }),
  );
}

/**
 * Settings every service reads. A service's config class extends this one and declares
 * its own variables with class-validator decorators (and the Env* ones above for numbers
 * and booleans); a field initializer is the variable's default.
 */
export class BaseConfig {
  @Matches(/^nats:\/\/\S+$/, { message: '$property must be a nats:// URL' })
  NATS_URL: string = DEFAULT_NATS_URL;

  /**
   * The service's own NATS user (deploy/k8s: one per service, with allow-lists); unset, the
   * connection is anonymous (`npm start`, docker-compose). Never logged.
   */
  @ValidateIf((c: BaseConfig) => c.NATS_USER !== undefined || c.NATS_PASSWORD !== undefined)
  @IsDefined({ message: '$property is required when NATS_PASSWORD is set' })
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: '$property must be a NATS user name' })
  NATS_USER?: string;

  /** The password of `NATS_USER`. */
  @ValidateIf((c: BaseConfig) => c.NATS_PASSWORD !== undefined)
  @IsString()
  NATS_PASSWORD?: string;

  @IsDefined({ message: '$property is required (postgres://user@host:5432/db)' })
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: '$property must be a postgres:// URL' })
  DATABASE_URL: string;

  @IsIn(LOG_LEVELS, { message: `$property must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: LogLevel = 'info';
}

/**
 * A config class whose last step reads more than its own variables (a file one of them
 * names, or variables that file names). It runs once every declared variable is valid and
 * returns its problems, each starting with the variable it is about.
 */
export interface DerivedConfig {
  derive(env: NodeJS.ProcessEnv): string[];
}

export class ConfigError extends Error {}

/**
 * Reads a config class's variables out of the environment (an empty value counts as unset,
 * variables the class does not declare are ignored), validates them and returns the typed
 * instance, or throws a ConfigError whose message is one line naming every bad variable.
 *
 * @example
 * class RouterConfig extends BaseConfig { @EnvPort() ROUTER_PORT = 3003; }
 * const config = loadConfig(RouterConfig, process.env);
 */
export function loadConfig<C extends object>(
  cls: new () => C,
  env: NodeJS.ProcessEnv = process.env,
): C {
  const names = declaredVariables(cls);
  const set: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') set[name] = value;
  }
  const config = plainToInstance(cls, set);
  const errors = new Map(
    validateSync(config, { stopAtFirstError: true }).map((e) => [e.property, e] as const),
  );
  const problems = names.filter((n) => errors.has(n)).map((n) => firstProblem(errors.get(n)!));
  if (!problems.length && isDerived(config)) problems.push(...config.derive(env));
  if (problems.length) throw new ConfigError(`config error: ${problems.join('; ')}`);
  return config;
}

/** The variables a config class validates, the base class's first (as they are reported). */
function declaredVariables(cls: new () => object): string[] {
  const chain: unknown[] = [];
  for (let c: unknown = cls; c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    chain.unshift(c);
  }
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const depth = (target: unknown) => chain.indexOf(target);
  const ordered = [...metadata].sort((a, b) => depth(a.target) - depth(b.target));
  return [...new Set(ordered.map((m) => m.propertyName))];
}

function firstProblem(e: ValidationError): string {
  return Object.values(e.constraints ?? {})[0] ?? `${e.property} is invalid`;
}

function isDerived(config: object): config is DerivedConfig {
  return typeof (config as Partial<DerivedConfig>).derive === 'function';
}
