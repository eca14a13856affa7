import { z } from 'zod';
import { baseConfigSchema, intSchema, portSchema } from '@dirigent/service-kit';
import { DEFAULT_TURN_CONFIG, type TurnDomainConfig } from '@dirigent/turn-domain';

const marker = (fallback: string) => z.string().min(1, 'must not be empty').default(fallback);
const snowflake = z.string().regex(/^\d{1,20}$/, 'must be a Discord snowflake');
const optionalPath = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== '' ? v : undefined));

export const TurnCoordinatorConfigSchema = baseConfigSchema.extend({
  TURN_COORDINATOR_PORT: portSchema(3002),
  DIRIGENT_DELIVERY_TIMEOUT_MS: intSchema(15000),
  DIRIGENT_TAIL_FINGERPRINT_LEN: intSchema(40),
  DIRIGENT_SCHEDULE_IDENTIFIER: marker('➡️'),
  DIRIGENT_MULTI_MESSAGE_START: marker('↗️'),
  DIRIGENT_MULTI_MESSAGE_END: marker('↙️'),
  DIRIGENT_MULTI_MESSAGE_PROMPT: marker('⤵️'),
  DIRIGENT_CHECK_WAIT_MS: intSchema(2000),
  DIRIGENT_MAX_CYCLES_WITHOUT_HUMAN: intSchema(3),
  /** The moderator bot's own user id: its messages never wake a channel. */
  DIRIGENT_MODERATOR_USER_ID: snowflake.optional(),
  /** The directory holding `discussion-summary/`. */
  DIRIGENT_WORKSPACE: optionalPath,
  /** JSON file of identities imported at start (`[{ discordUserId, agentId, agentName? }]`). */
  DIRIGENT_IDENTITY_FILE: optionalPath,
  /** padded-cell's `ego.json`, scanned at start when its `columns` include `discord-id`. */
  DIRIGENT_EGO_FILE: optionalPath,
  /** Time allowed for the ingest's members query and create-channel RPC. */
  DIRIGENT_DISCORD_RPC_TIMEOUT_MS: intSchema(5000),
  /** Discord events and turn completions handled at once (order is kept per channel). */
  DIRIGENT_COORDINATOR_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
});

export type TurnCoordinatorConfig = z.infer<typeof TurnCoordinatorConfigSchema>;

/** The deciders' configuration out of the service's environment. */
export function domainConfig(c: TurnCoordinatorConfig): TurnDomainConfig {
  return {
    ...DEFAULT_TURN_CONFIG,
    tailFingerprintLen: c.DIRIGENT_TAIL_FINGERPRINT_LEN,
    deliveryTimeoutMs: c.DIRIGENT_DELIVERY_TIMEOUT_MS,
    maxCyclesWithoutHuman: c.DIRIGENT_MAX_CYCLES_WITHOUT_HUMAN,
    scheduleIdentifier: c.DIRIGENT_SCHEDULE_IDENTIFIER,
    multiMessageStartMarker: c.DIRIGENT_MULTI_MESSAGE_START,
    multiMessageEndMarker: c.DIRIGENT_MULTI_MESSAGE_END,
    multiMessagePromptMarker: c.DIRIGENT_MULTI_MESSAGE_PROMPT,
  };
}
