import { z } from 'zod';
import { baseConfigSchema, intSchema, portSchema } from '@dirigent/service-kit';

const optional = (schema: z.ZodString) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

export const DiscordIngestConfigSchema = baseConfigSchema.extend({
  DISCORD_INGEST_PORT: portSchema(3001),
  /** Absent: the service runs without a Discord connection. */
  DISCORD_TOKEN: optional(z.string().min(1)),
  /** REST base; the gateway URL comes from `GET /gateway/bot`, as on real Discord. */
  DISCORD_API_URL: z.string().url().default('https://discord.com/api'),
  /** The moderator's Discord user; the bot's own user when absent. */
  DIRIGENT_MODERATOR_USER_ID: optional(
    z.string().regex(/^\d{1,20}$/, 'must be a Discord snowflake'),
  ),
  /** Pages of 100 messages fetched per channel when catching up after a reconnect. */
  DISCORD_CATCHUP_MAX_PAGES: intSchema(10),
  /** Deliveries of a send/delete command before it is dead-lettered. */
  DISCORD_COMMAND_MAX_DELIVER: intSchema(8),
});

export type DiscordIngestConfig = z.infer<typeof DiscordIngestConfigSchema>;
