import { Module } from '@nestjs/common';
import { baseConfigSchema, portSchema, type ServiceDefinition } from '@dirigent/service-kit';

export const LlmGatewayConfigSchema = baseConfigSchema.extend({
  LLM_GATEWAY_PORT: portSchema(3005),
});

/** Boots, connects to NATS and Postgres and reports health; its capability lands in a later issue. */
@Module({})
export class LlmGatewayModule {}

export const LlmGatewayService: ServiceDefinition<typeof LlmGatewayConfigSchema> = {
  name: 'llm-gateway',
  portEnv: 'LLM_GATEWAY_PORT',
  defaultPort: 3005,
  configSchema: LlmGatewayConfigSchema,
  streams: [],
  module: () => LlmGatewayModule,
};
