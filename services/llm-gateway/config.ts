import { z } from 'zod';
import { baseConfigSchema, portSchema } from '@dirigent/service-kit';
import { loadLlmConfig, type LlmConfig } from '@dirigent/llm';

/** An empty variable (`KEY=` in an env file) counts as unset. */
const optional = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
const token = optional(z.string().min(16, 'must be at least 16 characters'));

/**
 * The gateway's environment: the base settings, `LLM_GATEWAY_PORT`, the tokens, and
 * `DIRIGENT_LLM_CONFIG` loaded and validated at boot together with every provider key
 * it names (keys are read here, from the variables the file names, and nowhere else).
 */
export const LlmGatewayConfigSchema = baseConfigSchema
  .extend({
    LLM_GATEWAY_PORT: portSchema(3005),
    DIRIGENT_LLM_CONFIG: optional(z.string()),
    DIRIGENT_GATEWAY_TOKEN: token,
    DIRIGENT_CONTROL_TOKEN: token,
  })
  .passthrough()
  .transform((env, ctx) => {
    let llm: LlmConfig;
    try {
      llm = loadLlmConfig(env.DIRIGENT_LLM_CONFIG);
    } catch (e) {
      ctx.addIssue({
        code: 'custom',
        path: ['DIRIGENT_LLM_CONFIG'],
        message: (e as Error).message,
      });
      return z.NEVER;
    }
    const providerKeys: Record<string, string> = {};
    for (const p of llm.providers) {
      if (!p.apiKeyEnv) continue;
      const key = env[p.apiKeyEnv];
      if (typeof key !== 'string' || !key) {
        ctx.addIssue({
          code: 'custom',
          path: [p.apiKeyEnv],
          message: `is not set (the API key of provider ${p.id})`,
        });
        continue;
      }
      providerKeys[p.apiKeyEnv] = key;
    }
    return {
      NATS_URL: env.NATS_URL,
      DATABASE_URL: env.DATABASE_URL,
      LOG_LEVEL: env.LOG_LEVEL,
      LLM_GATEWAY_PORT: env.LLM_GATEWAY_PORT,
      DIRIGENT_GATEWAY_TOKEN: env.DIRIGENT_GATEWAY_TOKEN,
      DIRIGENT_CONTROL_TOKEN: env.DIRIGENT_CONTROL_TOKEN,
      llm,
      providerKeys,
    };
  });

export type LlmGatewayConfig = z.infer<typeof LlmGatewayConfigSchema>;
