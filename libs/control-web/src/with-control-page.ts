import { Module, type DynamicModule } from '@nestjs/common';
import { z } from 'zod';
import type { ServiceDefinition } from '@dirigent/service-kit';
import { ControlWebModule } from './control-web.module';

/** `DIRIGENT_CONTROL_TOKEN`: optional (the page is then disabled), at least 16 characters. */
export const controlTokenSchema = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== '' ? v.trim() : undefined))
  .refine((v) => v === undefined || v.length >= 16, 'must be at least 16 characters');

const WRAPPED = Symbol('withControlPage');

/**
 * A service definition that also serves the control page at `/dirigent`: its config
 * gains `DIRIGENT_CONTROL_TOKEN`, its module imports {@link ControlWebModule}.
 *
 * @example
 * export const TurnCoordinatorService = withControlPage({ name: 'turn-coordinator', ... });
 */
export function withControlPage<S extends z.AnyZodObject>(def: ServiceDefinition<S>) {
  // Wrapping twice would mount the page twice: a wrapped definition is returned as is.
  if ((def as unknown as Record<symbol, unknown>)[WRAPPED]) {
    return def as unknown as ServiceDefinition<ReturnType<typeof extend<S>>>;
  }
  const configSchema = extend(def.configSchema);
  type Config = z.infer<typeof configSchema>;
  const out: ServiceDefinition<typeof configSchema> = {
    ...def,
    configSchema,
    module: (config: Config): DynamicModule => {
      @Module({})
      class WithControlPage {}
      Object.defineProperty(WithControlPage, 'name', { value: `${def.name}-with-control-page` });
      const egoFile = (config as Record<string, unknown>).DIRIGENT_EGO_FILE;
      return {
        module: WithControlPage,
        imports: [
          def.module(config),
          ControlWebModule.forRoot({
            token: config.DIRIGENT_CONTROL_TOKEN as string | undefined,
            ...(typeof egoFile === 'string' ? { egoFile } : {}),
          }),
        ],
      };
    },
  };
  Object.defineProperty(out, WRAPPED, { value: true });
  return out;
}

function extend<S extends z.AnyZodObject>(schema: S) {
  return schema.extend({ DIRIGENT_CONTROL_TOKEN: controlTokenSchema });
}
