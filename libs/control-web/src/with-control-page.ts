import { Module, type DynamicModule } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsOptional, Matches, MinLength } from 'class-validator';
import { SNOWFLAKE_PATTERN } from '@dirigent/contracts';
import type { BaseConfig, ServiceDefinition } from '@dirigent/service-kit';
import { ControlWebModule } from './control-web.module';

/** What a service's config gains from {@link withControlPage}. */
export interface ControlPageConfig {
  /** Optional (the page is then disabled), at least 16 characters. */
  DIRIGENT_CONTROL_TOKEN?: string;
  /** The Discord member the token stands for: the actor of the page's decisions. */
  DIRIGENT_CONTROL_ACTOR_USER_ID?: string;
}

/** The service's config class with `DIRIGENT_CONTROL_TOKEN` (and its actor) added. */
export function withControlToken<C extends BaseConfig>(
  Config: new () => C,
): new () => C & ControlPageConfig {
  class WithControlToken extends (Config as new () => BaseConfig) {
    @IsOptional()
    @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
    @MinLength(16, { message: '$property must be at least 16 characters' })
    DIRIGENT_CONTROL_TOKEN?: string;

    @IsOptional()
    @Matches(SNOWFLAKE_PATTERN, { message: '$property must be a Discord user id (a snowflake)' })
    DIRIGENT_CONTROL_ACTOR_USER_ID?: string;
  }
  Object.defineProperty(WithControlToken, 'name', { value: `${Config.name}WithControlToken` });
  return WithControlToken as new () => C & ControlPageConfig;
}

const WRAPPED = Symbol('withControlPage');

/**
 * A service definition that also serves the control page at `/dirigent`: its config
 * gains `DIRIGENT_CONTROL_TOKEN`, its module imports {@link ControlWebModule}.
 *
 * @example
 * export const TurnCoordinatorService = withControlPage({ name: 'turn-coordinator', ... });
 */
export function withControlPage<C extends BaseConfig>(
  def: ServiceDefinition<C>,
): ServiceDefinition<C & ControlPageConfig> {
  // Wrapping twice would mount the page twice: a wrapped definition is returned as is.
  if ((def as unknown as Record<symbol, unknown>)[WRAPPED]) {
    return def as ServiceDefinition<C & ControlPageConfig>;
  }
  const out: ServiceDefinition<C & ControlPageConfig> = {
    ...def,
    config: withControlToken(def.config),
    module: (config): DynamicModule => {
      @Module({})
      class WithControlPage {}
      Object.defineProperty(WithControlPage, 'name', { value: `${def.name}-with-control-page` });
      const egoFile = (config as unknown as Record<string, unknown>).DIRIGENT_EGO_FILE;
      return {
        module: WithControlPage,
        imports: [
          def.module(config),
          ControlWebModule.forRoot({
            token: config.DIRIGENT_CONTROL_TOKEN,
            actorUserId: config.DIRIGENT_CONTROL_ACTOR_USER_ID,
            ...(typeof egoFile === 'string' ? { egoFile } : {}),
          }),
        ],
      };
    },
  };
  Object.defineProperty(out, WRAPPED, { value: true });
  return out;
}
