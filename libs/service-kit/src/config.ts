import { z } from 'zod';

/** Settings every service reads. Service-specific schemas extend this one. */
export const baseConfigSchema = z.object({
  NATS_URL: z.string().url().default('nats://127.0.0.1:4222'),
  DATABASE_URL: z
    .string({ required_error: 'is required (postgres://user@host:5432/db)' })
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/** An HTTP port variable such as `TURN_COORDINATOR_PORT`. */
export const portSchema = (fallback: number) =>
  z.coerce.number().int().min(0).max(65535).default(fallback);

/** A non-negative integer tunable such as `DIRIGENT_CHECK_WAIT_MS`. */
export const intSchema = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

export class ConfigError extends Error {}

/**
 * Validates the environment against a schema and returns the typed config, or throws a
 * ConfigError whose message is one line naming every bad variable.
 *
 * @example
 * const config = loadConfig(baseConfigSchema.extend({ ROUTER_PORT: portSchema(3003) }));
 */
export function loadConfig<S extends z.ZodTypeAny>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'} ${i.message}`);
  throw new ConfigError(`config error: ${problems.join('; ')}`);
}
