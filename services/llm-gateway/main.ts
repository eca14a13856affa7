import { runService } from '@dirigent/service-kit';
import { LlmGatewayService } from './llm-gateway.module';

runService(LlmGatewayService);
